package classroom

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// Over TLS the session's cookie is Secure, and the server says HSTS.
func TestSecureCookieOverTLS(t *testing.T) {
	tc := newTestClass(t, nil)
	srv := httptest.NewTLSServer(tc.class)
	defer srv.Close()
	link := tc.invite("ann")
	req, _ := http.NewRequest("POST", srv.URL+"/_class/signin", strings.NewReader(url.Values{"link": {link}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", srv.URL)
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	res, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if set := res.Header.Get("Set-Cookie"); !strings.Contains(set, "Secure") || !strings.Contains(set, "HttpOnly") {
		t.Errorf("Set-Cookie over TLS: %q", set)
	}
	if res.Header.Get("Strict-Transport-Security") == "" {
		t.Error("no HSTS over TLS")
	}
}

// Behind a proxy that speaks TLS (X-Forwarded-Proto: https from its
// address) the cookie is Secure too; the header from elsewhere is not
// believed.
func TestSecureCookieBehindTheProxy(t *testing.T) {
	for _, tc := range []struct {
		proxy  string
		secure bool
	}{{"127.0.0.1", true}, {"10.9.8.7", false}} {
		cls := newTestClass(t, func(c *Config) { c.ProxyAddr = tc.proxy })
		req, _ := http.NewRequest("POST", cls.srv.URL+"/_class/signin", strings.NewReader(url.Values{"link": {cls.invite("ann")}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", cls.srv.URL)
		req.Header.Set("X-Forwarded-Proto", "https")
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if set := res.Header.Get("Set-Cookie"); strings.Contains(set, "Secure") != tc.secure {
			t.Errorf("proxy at %s: Set-Cookie %q", tc.proxy, set)
		}
	}
}
