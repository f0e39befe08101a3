package serve

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// site is a build that tests change between rebuilds.
type site struct {
	mu    sync.Mutex
	pages map[string][]byte
	err   error
}

func (s *site) build() (map[string][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pages, s.err
}

func (s *site) set(pages map[string][]byte, err error) {
	s.mu.Lock()
	s.pages, s.err = pages, err
	s.mu.Unlock()
}

// testToken is the token of the tests' servers.
const testToken = "test-token-5b2a9c"

func newServer(build func() (map[string][]byte, error)) *Server {
	s := New(build)
	s.SetToken(testToken)
	return s
}

// withToken adds the test token to a URL of a test server.
func withToken(u string) string {
	if strings.Contains(u, "?") {
		return u + "&token=" + testToken
	}
	return u + "?token=" + testToken
}

// get gets u with the token, as a page of the server would.
func get(t *testing.T, u string) (int, string, string) {
	t.Helper()
	if !strings.Contains(u, "token=") {
		u = withToken(u)
	}
	return bare(t, u)
}

// bare gets u as it is, without adding the token.
func bare(t *testing.T, u string) (int, string, string) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Content-Type"), string(body)
}

func TestPages(t *testing.T) {
	s := &site{pages: map[string][]byte{
		"index.html":      []byte("<html><body><h1>Contents</h1></body></html>"),
		"day001-a.html":   []byte("<html><body><p>First draft</p></body></html>"),
		"style.css":       []byte("body{}"),
		"../secret.html":  []byte("never"),
		"day002-b.html":   []byte("no body tag"),
		"plain/inner.txt": []byte("x"),
	}}
	srv := httptest.NewServer(newServer(s.build))
	defer srv.Close()

	code, ctype, body := get(t, srv.URL+"/")
	if code != 200 || !strings.HasPrefix(ctype, "text/html") || !strings.Contains(body, "Contents") {
		t.Errorf("/: %d %s %q", code, ctype, body)
	}
	if !strings.Contains(body, `new EventSource("/_lessons/reload?token=`+testToken+`")`+".onmessage = function () { location.reload(); };</script>\n</body>") {
		t.Errorf("the reload script should end the body: %q", body)
	}
	if _, _, body := get(t, srv.URL+"/day002-b.html"); !strings.HasSuffix(body, "location.reload(); };</script>") {
		t.Errorf("a page without </body> gets the script at its end: %q", body)
	}
	if code, ctype, body := get(t, srv.URL+"/style.css"); code != 200 || !strings.HasPrefix(ctype, "text/css") || body != "body{}" {
		t.Errorf("style.css: %d %s %q", code, ctype, body)
	}
	for _, p := range []string{"/nothing.html", "/../secret.html", "/%2e%2e/secret.html"} {
		if code, _, body := get(t, srv.URL+p); code != 404 || !strings.Contains(body, "not a page of this course") {
			t.Errorf("%s: %d %q", p, code, body)
		}
	}
	res, err := http.Post(withToken(srv.URL+"/"), "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", res.StatusCode)
	}
}

// TestReload: a page listening gets "reload" after each rebuild; a build
// that fails shows its error on every page, which recovers on the next
// good build.
func TestReload(t *testing.T) {
	s := &site{pages: map[string][]byte{"index.html": []byte("<body>one</body>")}}
	server := newServer(s.build)
	srv := httptest.NewServer(server)
	defer srv.Close()

	res, err := http.Get(withToken(srv.URL + ReloadPath))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() string {
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatal("the event stream closed")
				}
				if strings.HasPrefix(l, "data: ") {
					return l
				}
			case <-time.After(30 * time.Second): // a lost event, not a slow one
				t.Fatal("no event within 30 s")
			}
		}
	}
	for server.Watchers() == 0 {
		time.Sleep(time.Millisecond)
	}

	s.set(map[string][]byte{"index.html": []byte("<body>two</body>")}, nil)
	server.Rebuild()
	if l := next(); l != "data: reload" {
		t.Errorf("event %q", l)
	}
	if _, _, body := get(t, srv.URL+"/"); !strings.Contains(body, "two") {
		t.Errorf("after the rebuild: %q", body)
	}

	s.set(nil, errors.New("lessons/day001-a.md:3: a <cell> without its end"))
	if err := server.Rebuild(); err == nil {
		t.Error("Rebuild should return the build's error")
	}
	next()
	code, _, body := get(t, srv.URL+"/day001-a.html")
	if code != 500 || !strings.Contains(body, "lessons/day001-a.md:3: a &lt;cell&gt; without its end") || !strings.Contains(body, "EventSource") {
		t.Errorf("a failed build: %d %q", code, body)
	}

	s.set(map[string][]byte{"index.html": []byte("<body>three</body>")}, nil)
	server.Rebuild()
	next()
	if code, _, body := get(t, srv.URL+"/"); code != 200 || !strings.Contains(body, "three") {
		t.Errorf("after the fix: %d %q", code, body)
	}
}
