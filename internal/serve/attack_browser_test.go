package serve

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cudalessons/lessons/internal/browsertest"
)

// recorder counts the requests a server answers, by path.
type recorder struct {
	h    http.Handler
	mu   sync.Mutex
	seen map[string]int
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.seen[req.URL.Path]++
	r.mu.Unlock()
	r.h.ServeHTTP(w, req)
}

func (r *recorder) count(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[path]
}

// Another site frames the lesson page, even with the token in its URL:
// the browser refuses to show it (frame-ancestors 'none', X-Frame-Options
// DENY), so no click in the frame can run a cell. The framed page would
// load its notebook script before the frame's load event; it never does.
func TestBrowserPageCannotBeFramed(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	rec := &recorder{h: c.srv, seen: map[string]int{}}
	lab := httptest.NewServer(rec)
	t.Cleanup(lab.Close)
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>evil</title><iframe src=%q onload="document.title = 'loaded'"></iframe>`, withToken(lab.URL+"/day001-a.html"))
	}))
	defer evil.Close()
	p := &page{t: t, ctx: browsertest.New(t, browsertest.Options{})}
	p.do("open the other site", chromedp.Navigate(evil.URL))
	p.wait("the frame's load event", `document.title === "loaded"`)
	if rec.count("/day001-a.html") == 0 {
		t.Fatal("the frame never asked for the page: the test shows nothing")
	}
	if n := rec.count(assetPrefix + "notebook.js"); n != 0 {
		t.Errorf("the framed page ran: it loaded notebook.js %d times", n)
	}
}

// Another site's <script> tag reads the search index (every lesson's
// text) only if the server hands it over: without the token it is
// refused, and with the token (had it leaked) too, since the request
// comes from another site.
func TestBrowserSearchIndexNotReadByAnotherSite(t *testing.T) {
	srv := newServer(func() (map[string][]byte, error) {
		return map[string][]byte{
			"index.html":      []byte(`<!doctype html><title>lab</title><body><script src="search-index.js"></script><script>document.title = window.lessonsSearchIndex ? "read" : "none"</script></body>`),
			"search-index.js": []byte(`window.lessonsSearchIndex = ["the secret lesson text"];`),
		}, nil
	})
	// Closed after the browsers (cleanups run last first): the page's
	// reload stream stays open while its browser lives.
	lab := httptest.NewServer(srv)
	t.Cleanup(lab.Close)
	for _, tc := range []struct{ name, src string }{
		{"no token", lab.URL + "/search-index.js"},
		{"the token", withToken(lab.URL + "/search-index.js")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprintf(w, `<!doctype html><title>evil</title><script src=%q onerror="document.title = 'refused'" onload="document.title = window.lessonsSearchIndex ? 'read: ' + window.lessonsSearchIndex : 'none'"></script>`, tc.src)
			}))
			defer evil.Close()
			p := &page{t: t, ctx: browsertest.New(t, browsertest.Options{})}
			p.do("open the other site", chromedp.Navigate(evil.URL))
			p.wait("the script's end", `document.title !== "evil"`)
			if title := p.eval("document.title"); title != "refused" {
				t.Errorf("another site's <script>: %q, want refused", title)
			}
		})
	}
	// The page itself reads it: its URLs carry the token.
	p := &page{t: t, ctx: browsertest.New(t, browsertest.Options{})}
	p.do("open the lab's page", chromedp.Navigate(withToken(lab.URL+"/")))
	p.wait("the page's script", `document.title !== "lab"`)
	if title := p.eval("document.title"); title != "read" {
		t.Errorf("the page's own script: %q, want read", title)
	}
	if body := p.eval("document.documentElement.outerHTML"); !strings.Contains(body, "search-index.js?token="+testToken) {
		t.Errorf("the page's script URL lacks the token: %s", body)
	}
}
