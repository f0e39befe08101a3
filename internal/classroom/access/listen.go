package access

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ListenError is an address the class server will not listen on as
// asked, with what to do instead.
type ListenError struct{ Addr, Why string }

func (e *ListenError) Error() string {
	return fmt.Sprintf("serve --class --addr %s: %s", e.Addr, e.Why)
}

// Listen opens the class server's listener: TLS with the certificate
// and key given, or plain HTTP on a loopback address only, or on a Unix
// socket (addr unix:PATH) that only the server's user and group may
// open (both behind the instructor's proxy, which speaks TLS to the
// browsers). Anything else would send the students' sessions in the
// clear.
func Listen(addr, certFile, keyFile, group string) (net.Listener, error) {
	if path, ok := strings.CutPrefix(addr, "unix:"); ok {
		if certFile != "" || keyFile != "" {
			return nil, &ListenError{addr, "a Unix socket is for a proxy on this machine, which speaks TLS to the browsers: drop --tls-cert and --tls-key"}
		}
		return listenUnix(addr, path, group)
	}
	if group != "" {
		return nil, &ListenError{addr, "--socket-group is the group of a Unix socket: listen on one (--addr unix:/run/lessons-class/class.sock)"}
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &ListenError{addr, err.Error() + ": give HOST:PORT"}
	}
	if (certFile == "") != (keyFile == "") {
		return nil, &ListenError{addr, "give both --tls-cert and --tls-key, or neither"}
	}
	if certFile == "" {
		ip := net.ParseIP(host)
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return nil, &ListenError{addr, "plain HTTP would carry the students' sessions in the clear: give --tls-cert and --tls-key, or listen on 127.0.0.1 behind a proxy that speaks TLS (--proxy-header for its sign-in)"}
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, &ListenError{addr, err.Error() + ": choose another port"}
		}
		return ln, nil
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, &ListenError{addr, fmt.Sprintf("the certificate %s and key %s: %v", certFile, keyFile, err)}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &ListenError{addr, err.Error() + ": choose another port"}
	}
	return tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}), nil
}

// listenUnix listens on the Unix socket path, mode 0600 or, with group,
// 0660 and that group's (the proxy's): connecting needs write permission
// on it, so no other user of the machine may send the proxy's header.
// (Students' cells may open no socket outside their folder: the sandbox.)
func listenUnix(addr, path, group string) (net.Listener, error) {
	if !filepath.IsAbs(path) {
		return nil, &ListenError{addr, "the socket's path is not absolute: give one such as unix:/run/lessons-class/class.sock"}
	}
	gid := -1
	if group != "" {
		g, err := user.LookupGroup(group)
		if err != nil {
			if g, err = user.LookupGroupId(group); err != nil {
				return nil, &ListenError{addr, fmt.Sprintf("--socket-group %s: no such group: name the proxy's group (www-data for nginx on Debian)", group)}
			}
		}
		gid, _ = strconv.Atoi(g.Gid)
	}
	if st, err := os.Lstat(path); err == nil {
		if st.Mode()&os.ModeSocket == 0 {
			return nil, &ListenError{addr, path + " is there and is not a socket: remove it, or give another path"}
		}
		if c, err := net.Dial("unix", path); err == nil {
			c.Close()
			return nil, &ListenError{addr, "another server listens on " + path + ": stop it, or give another path"}
		}
		os.Remove(path) // a killed server's
	}
	// Made with no permission for anyone but its owner, then opened to the
	// group: never, for an instant, to others.
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return nil, &ListenError{addr, err.Error() + ": make its folder (systemd's RuntimeDirectory=lessons-class), or give another path"}
	}
	if gid >= 0 {
		if err := os.Chown(path, -1, gid); err != nil {
			ln.Close()
			return nil, &ListenError{addr, fmt.Sprintf("give the socket to the group %s: %v: run the server as root or as a member of %s", group, err, group)}
		}
		if err := os.Chmod(path, 0o660); err != nil {
			ln.Close()
			return nil, &ListenError{addr, err.Error()}
		}
	}
	return ln, nil
}
