package serve

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Every answer, refusals and errors included, forbids framing and
// loading from another site, and never hands the URL's token to another
// site as a Referer.
func TestEveryResponseForbidsFraming(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	for _, u := range []string{
		withToken(c.http.URL + "/day001-a.html"), withToken(c.http.URL + "/nothing.html"),
		c.http.URL + "/day001-a.html", withToken(c.http.URL + assetPrefix + "notebook.js"),
		withToken(c.http.URL + apiPrefix + "cells?page=day001-a"), c.http.URL + apiPrefix + "cells",
	} {
		res, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		for h, want := range map[string]string{
			"Content-Security-Policy":      "frame-ancestors 'none'",
			"X-Frame-Options":              "DENY",
			"Cross-Origin-Resource-Policy": "same-origin",
			"Referrer-Policy":              "no-referrer",
		} {
			if got := res.Header.Get(h); got != want {
				t.Errorf("%s (%d): %s: %q, want %q", u, res.StatusCode, h, got, want)
			}
		}
	}
}

// A request for a script or a stream that the browser says comes from
// another site is refused, with the token too.
func TestCrossSiteSubresourceRefused(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	for _, tc := range []struct {
		site, mode string
		want       int
	}{
		{"cross-site", "no-cors", http.StatusForbidden},
		{"same-site", "no-cors", http.StatusForbidden},
		{"same-origin", "no-cors", http.StatusOK},
		{"none", "navigate", http.StatusOK},
		{"cross-site", "navigate", http.StatusOK}, // a link followed: it must carry the token
		{"", "", http.StatusOK},                   // a browser that does not say
	} {
		req, _ := http.NewRequest("GET", withToken(c.http.URL+assetPrefix+"notebook.js"), nil)
		if tc.site != "" {
			req.Header.Set("Sec-Fetch-Site", tc.site)
			req.Header.Set("Sec-Fetch-Mode", tc.mode)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tc.want {
			t.Errorf("Sec-Fetch-Site %q, mode %q: %d, want %d", tc.site, tc.mode, res.StatusCode, tc.want)
		}
	}
}

// The page's links and sources carry the token, so that the page loads
// whole; links elsewhere and anchors are left alone.
func TestPageURLsCarryTheToken(t *testing.T) {
	srv := newServer(func() (map[string][]byte, error) {
		return map[string][]byte{"index.html": []byte(`<body><a href="day001-a.html#x">a</a><a href="https://example.com/">b</a><a href="#top">c</a><link href="style.css"><script src="search-index.js?v=1"></script><a href="mailto:x@y">m</a></body>`)}, nil
	})
	_, _, body := getFrom(t, srv, "/")
	for _, want := range []string{
		`href="day001-a.html?token=` + testToken + `#x"`, `href="https://example.com/"`, `href="#top"`,
		`href="style.css?token=` + testToken + `"`, `src="search-index.js?v=1&amp;token=` + testToken + `"`, `href="mailto:x@y"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s:\n%s", want, body)
		}
	}
}

func getFrom(t *testing.T, srv *Server, path string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", withToken("http://127.0.0.1"+path), nil)
	w := &captured{h: http.Header{}}
	srv.ServeHTTP(w, req)
	return w.code, w.h.Get("Content-Type"), w.body.String()
}

type captured struct {
	h    http.Header
	code int
	body strings.Builder
}

func (c *captured) Header() http.Header { return c.h }
func (c *captured) Write(b []byte) (int, error) {
	if c.code == 0 {
		c.code = 200
	}
	return c.body.Write(b)
}
func (c *captured) WriteHeader(code int) { c.code = code }

// Past the cap on open streams (reloads and verdicts together), a page
// is answered 503 with why; a stream that ends makes room.
func TestStreamCap(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	c.srv.SetMaxStreams(3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := func(path string) *http.Response {
		req, _ := http.NewRequestWithContext(ctx, "GET", withToken(c.http.URL+path), nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	var held []*http.Response
	for _, p := range []string{ReloadPath, apiPrefix + "events", ReloadPath} {
		res := open(p)
		if res.StatusCode != 200 {
			t.Fatalf("stream %s under the cap: %s", p, res.Status)
		}
		held = append(held, res)
	}
	for _, p := range []string{ReloadPath, apiPrefix + "events"} {
		res := open(p)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "3 pages already listen") {
			t.Errorf("stream %s past the cap: %s %s", p, res.Status, body)
		}
	}
	// One page goes away: its place is free once the server sees it go
	// (asked again until then; no sleep).
	held[0].Body.Close()
	for {
		res := open(ReloadPath)
		if res.StatusCode == 200 {
			res.Body.Close()
			return
		}
		res.Body.Close()
	}
}
