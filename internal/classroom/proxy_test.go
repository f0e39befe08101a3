package classroom

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/classroom/access"
)

// A header-trusting set-up that this machine's users could forge is
// refused with what to do: the proxy on loopback (or an address of this
// machine) over TCP, with no secret. A Unix socket, a secret, or a proxy
// on another machine is not.
func TestProxyOnLoopbackOverTCPIsRefused(t *testing.T) {
	tcp := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 3000}
	for _, tc := range []struct {
		name          string
		served        net.Addr
		proxy, secret string
		refused       bool
	}{
		{"loopback", tcp, "127.0.0.1", "", true},
		{"loopback v6", tcp, "::1", "", true},
		{"a secret", tcp, "127.0.0.1", strings.Repeat("s", 32), false},
		{"a Unix socket", &net.UnixAddr{Name: "/run/c.sock", Net: "unix"}, "127.0.0.1", "", false},
		{"another machine", &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 443}, "192.0.2.50", "", false},
		{"not an address", tcp, "proxy.uni.example", "", true},
	} {
		cfg := Config{ProxyHeader: "X-Forwarded-User", ProxyAddr: tc.proxy, ProxySecret: tc.secret, Served: tc.served}
		err := checkProxyTrust(cfg)
		var pe *ProxyError
		if tc.refused != errors.As(err, &pe) {
			t.Errorf("%s: %v", tc.name, err)
		}
		if tc.refused && tc.name != "not an address" && (!strings.Contains(err.Error(), "unix:") || !strings.Contains(err.Error(), "--proxy-secret-file")) {
			t.Errorf("%s: says not what to do: %v", tc.name, err)
		}
	}
	cfg := testConfig(t, &fakeTools{}, newClock().now)
	cfg.ProxyHeader, cfg.ProxyAddr, cfg.Served = "X-Forwarded-User", "127.0.0.1", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 3000}
	if _, err := Open(cfg); err == nil || !strings.Contains(err.Error(), "any user of it could connect") {
		t.Fatalf("Open: %v", err)
	}
}

// With a secret, the header is believed only with it, from the proxy's
// address too.
func TestProxySecret(t *testing.T) {
	secret := strings.Repeat("k", 40)
	tc := newTestClass(t, func(c *Config) {
		c.ProxyHeader, c.ProxyAddr, c.ProxySecret = "X-Remote-User", "127.0.0.1", secret
	})
	b := tc.browser()
	for _, h := range []map[string]string{{"X-Remote-User": "ann"}, {"X-Remote-User": "ann", ProxySecretHeader: "wrong"}} {
		if code, body := b.do("GET", "/_class/api/me", nil, h); code != http.StatusForbidden || !strings.Contains(body, ProxySecretHeader) {
			t.Errorf("%v: %d %s", h, code, body)
		}
	}
	if code, body := b.do("GET", "/_class/api/me", nil, map[string]string{"X-Remote-User": "ann", ProxySecretHeader: secret}); code != 200 || !strings.Contains(body, `"id":"ann"`) {
		t.Errorf("with the secret: %d %s", code, body)
	}
}

// Over the class's Unix socket the proxy's header is believed (the
// socket's mode keeps the machine's other users out: 0600, or 0660 and
// the proxy's group), and a socket a killed server left is replaced.
func TestProxyOverAUnixSocket(t *testing.T) {
	dir, err := os.MkdirTemp("", "cls") // short: a socket's path has 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "class.sock")
	os.WriteFile(path, nil, 0o600)
	if _, err := access.Listen("unix:"+path, "", "", ""); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("a file in the way: %v", err)
	}
	os.Remove(path)
	stale, _ := net.Listen("unix", path)
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()
	ln, err := access.Listen("unix:"+path, "", "", "")
	if err != nil {
		t.Fatalf("over a killed server's socket: %v", err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("the socket's mode: %v, want 0600", st.Mode().Perm())
	}
	if _, err := access.Listen("unix:"+path, "", "", ""); err == nil || !strings.Contains(err.Error(), "another server listens") {
		t.Errorf("a second server on the socket: %v", err)
	}
	if _, err := access.Listen("unix:"+path, "", "", "no-such-group-here"); err == nil || !strings.Contains(err.Error(), "no such group") {
		t.Errorf("an unknown group: %v", err)
	}
	if _, err := access.Listen("unix:rel.sock", "", "", ""); err == nil || !strings.Contains(err.Error(), "not absolute") {
		t.Errorf("a relative path: %v", err)
	}
	if _, err := access.Listen("127.0.0.1:0", "", "", "www-data"); err == nil || !strings.Contains(err.Error(), "Unix socket") {
		t.Errorf("a group for a TCP address: %v", err)
	}

	cfg := testConfig(t, &fakeTools{}, newClock().now)
	cfg.ProxyHeader, cfg.ProxyAddr, cfg.Served = "X-Remote-User", "127.0.0.1", ln.Addr()
	cls, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cls.Close()
	hs := &http.Server{Handler: cls}
	go hs.Serve(ln)
	defer hs.Close()
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", path)
	}}}
	req, _ := http.NewRequest("GET", "http://localhost/_class/api/me", nil)
	req.Header.Set("X-Remote-User", "ann")
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), `"id":"ann"`) {
		t.Fatalf("through the socket: %s %s", res.Status, body)
	}
}

func TestReadSecret(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "secret")
	for _, tc := range []struct {
		data string
		mode os.FileMode
		want string
	}{
		{strings.Repeat("a", 64) + "\n", 0o644, "readable by every user"},
		{"short", 0o640, "fewer than 32"},
		{strings.Repeat("a", 64) + "\n", 0o640, ""},
	} {
		os.WriteFile(file, []byte(tc.data), tc.mode)
		os.Chmod(file, tc.mode)
		s, err := ReadSecret(file)
		if tc.want == "" {
			if err != nil || s != strings.Repeat("a", 64) {
				t.Errorf("%v: %q %v", tc.mode, s, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.mode, err, tc.want)
		}
	}
}
