package classroom

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
)

// ProxySecretHeader is the header by which the proxy proves a request is
// its own, where Config.ProxySecret is set.
const ProxySecretHeader = "X-Lessons-Proxy-Secret"

// ProxyError is a proxy set-up that would let someone other than the
// proxy name the signed-in person, with what to do instead.
type ProxyError struct{ Why string }

func (e *ProxyError) Error() string { return "serve --class --proxy-header: " + e.Why }

// checkProxyTrust refuses a header-trusting set-up that the machine's
// own users could forge: the header believed from an address of this
// machine, over TCP (which any local user may connect to, and send the
// header naming anyone, the instructor included), with no secret only
// the proxy knows. A Unix socket is safe (its mode lets only the proxy's
// user open it), and so is a proxy on another machine (a local user
// cannot send from its address).
func checkProxyTrust(cfg Config) error {
	if cfg.ProxyHeader == "" || cfg.ProxySecret != "" || cfg.Served == nil {
		return nil
	}
	if _, ok := cfg.Served.(*net.UnixAddr); ok {
		return nil
	}
	ip := net.ParseIP(cfg.ProxyAddr)
	if ip == nil {
		return &ProxyError{fmt.Sprintf("--proxy-addr %q is not an IP address: give the proxy's", cfg.ProxyAddr)}
	}
	if !localIP(ip) {
		return nil
	}
	return &ProxyError{fmt.Sprintf("the proxy at %s is on this machine, so any user of it could connect to %s and send %s naming anyone, the instructor included: "+
		"listen on a Unix socket only the proxy's user may open (--addr unix:/run/lessons-class/class.sock --socket-group www-data, "+
		"and proxy_pass to it), or give --proxy-secret-file FILE and have the proxy send the file's secret as %s (the README's class section)",
		cfg.ProxyAddr, cfg.Served, cfg.ProxyHeader, ProxySecretHeader)}
}

// localIP tells whether ip is this machine's: loopback, or an address
// of one of its interfaces.
func localIP(ip net.IP) bool {
	if ip.IsLoopback() || ip.IsUnspecified() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return true // unknown: as if it were
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// fromProxy tells whether r came from the proxy, or says why not: over
// the class's Unix socket, or from ProxyAddr; and with the proxy's
// secret, where one is set.
func (c *Class) fromProxy(r *http.Request) (bool, string) {
	if c.cfg.ProxySecret != "" && subtle.ConstantTimeCompare([]byte(r.Header.Get(ProxySecretHeader)), []byte(c.cfg.ProxySecret)) != 1 {
		return false, fmt.Sprintf("class: the request did not carry the proxy's %s: %s is trusted only from the proxy", ProxySecretHeader, c.cfg.ProxyHeader)
	}
	if _, ok := r.Context().Value(http.LocalAddrContextKey).(*net.UnixAddr); ok {
		return true, ""
	}
	if ip := net.ParseIP(remoteIP(r.RemoteAddr)); ip != nil && ip.Equal(net.ParseIP(c.cfg.ProxyAddr)) {
		return true, ""
	}
	return false, fmt.Sprintf("class: %s is trusted only from the proxy at %s", c.cfg.ProxyHeader, c.cfg.ProxyAddr)
}

// ReadSecret reads the proxy's secret from file, which must be the
// server's alone (no one else may read it: who can is the proxy).
func ReadSecret(file string) (string, error) {
	st, err := os.Stat(file)
	if err != nil {
		return "", fmt.Errorf("--proxy-secret-file: %w", err)
	}
	if st.Mode().Perm()&0o007 != 0 {
		return "", fmt.Errorf("--proxy-secret-file %s is readable by every user of this machine (mode %v): chmod o-rwx it (the proxy's group may read it)", file, st.Mode().Perm())
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("--proxy-secret-file: %w", err)
	}
	s := strings.TrimSpace(string(data))
	if len(s) < 32 {
		return "", fmt.Errorf("--proxy-secret-file %s: the secret is %d characters, fewer than 32: write a long random one (openssl rand -hex 32 > %s)", file, len(s), file)
	}
	return s, nil
}
