// Package serve serves a course's site over HTTP while it is being written
// or read, and makes every open page reload when the site is rebuilt (a
// lesson saved), through server-sent events: the browser's EventSource
// keeps one request open and reconnects by itself, so no library is needed
// on either side.
//
// With a Notebook and a Checker it is also the page's notebook: the page
// runs cells (their output streamed back as it comes), edits the
// workspace's copy of file cells, and checks exercises. Because a page can
// then run code, every request passes guard first: the Host must be this
// server's (no DNS rebinding), and whatever runs or changes anything needs
// the server's token and a matching Origin.
package serve

import (
	"bytes"
	"fmt"
	"html"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
)

// ReloadPath is where pages listen for reloads.
const ReloadPath = "/_lessons/reload"

// reloadScript goes at the end of every page served.
const reloadScript = `<script>new EventSource("` + ReloadPath + `").onmessage = function () { location.reload(); };</script>`

// Server serves the site that Build renders, as of the last Rebuild.
type Server struct {
	build func() (map[string][]byte, error)

	mu   sync.Mutex
	site map[string][]byte
	err  error // why the last build failed; the site is then an error page
	gen  int   // how many builds: a page of an older one reloads
	subs map[chan struct{}]struct{}

	guard guard
	nb    *Notebook // nil: a read-only site
	check Checker   // nil: no Check in the page
	feed  feed      // verdicts pushed to the pages
	// checking holds a lock for each exercise being checked.
	checking sync.Map
}

// New renders the site once and serves it, to this machine's names only
// (see AllowHost) and with a fresh random token.
func New(build func() (map[string][]byte, error)) *Server {
	s := &Server{build: build, subs: map[chan struct{}]struct{}{}, guard: newGuard()}
	s.feed.subs = map[chan []byte]struct{}{}
	s.Rebuild()
	return s
}

// Token is the secret a page carries to run or change anything.
func (s *Server) Token() string { return s.guard.token }

// SetToken replaces the random token (scripts that drive the server).
func (s *Server) SetToken(t string) { s.guard.token = t }

// AllowHost accepts host (a name the server is reached by, as in --addr)
// in the Host header, beside localhost and IP addresses.
func (s *Server) AllowHost(host string) { s.guard.hosts[strings.ToLower(host)] = true }

// RequireTokenForPages makes every page need ?token= too: for a server
// that other machines can reach.
func (s *Server) RequireTokenForPages() { s.guard.pages = true }

// SetNotebook lets pages run their lesson's cells through nb.
func (s *Server) SetNotebook(nb *Notebook) { s.nb = nb }

// SetChecker lets pages check exercises through c.
func (s *Server) SetChecker(c Checker) { s.check = c }

// Rebuild renders the site again and tells every open page to reload. A
// build that fails keeps serving: each page then shows the error, and
// reloads when a later build works.
func (s *Server) Rebuild() error {
	site, err := s.build()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.site, s.err = site, err
	s.gen++
	for ch := range s.subs {
		select {
		case ch <- struct{}{}:
		default: // a reload is already on its way to that page
		}
	}
	s.feed.send([]byte(fmt.Sprintf("event: reload\ndata: %d\n\n", s.gen)))
	return err
}

// Err is why the last build failed, or nil.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Watchers is how many pages listen for reloads.
func (s *Server) Watchers() int {
	s.mu.Lock()
	n := len(s.subs)
	s.mu.Unlock()
	s.feed.mu.Lock()
	defer s.feed.mu.Unlock()
	return n + len(s.feed.subs)
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if msg, code := s.guard.host(r); msg != "" {
		http.Error(w, msg, code)
		return
	}
	if strings.HasPrefix(r.URL.Path, apiPrefix) || strings.HasPrefix(r.URL.Path, assetPrefix) {
		s.api(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "only GET and HEAD", http.StatusMethodNotAllowed)
		return
	}
	if r.URL.Path == ReloadPath {
		s.events(w, r)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" {
		name = "index.html"
	}
	// Pages carry the token (in a meta tag), so they need it where pages
	// are guarded; the site's styles and scripts do not, and a browser
	// loads them without it.
	if strings.HasSuffix(name, ".html") {
		if msg, code := s.guard.page(r); msg != "" {
			http.Error(w, msg, code)
			return
		}
	}
	s.mu.Lock()
	site, err, gen := s.site, s.err, s.gen
	s.mu.Unlock()
	w.Header().Set("Cache-Control", "no-store")
	if err != nil {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>The course does not build</title></head>\n<body><h1>The course does not build</h1>\n<p>Fix this and save: the page reloads by itself.</p>\n<pre>%s</pre>\n%s\n</body></html>\n", html.EscapeString(err.Error()), reloadScript)
		return
	}
	data, ok := site[name]
	if !ok {
		http.Error(w, fmt.Sprintf("%s is not a page of this course; the contents are at /", name), http.StatusNotFound)
		return
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ctype)
	if strings.HasSuffix(name, ".html") {
		data = s.withScripts(data, gen)
	}
	w.Write(data)
}

// withScripts puts the reload script, or the notebook's when there is
// one (it listens for reloads and verdicts on one stream: a browser keeps
// only six connections to a server open), at the end of a page's body.
func (s *Server) withScripts(page []byte, gen int) []byte {
	if s.nb != nil || s.check != nil {
		return withScript(page, s.notebookScripts(gen))
	}
	return withScript(page, reloadScript)
}

func withScript(page []byte, script string) []byte {
	i := bytes.LastIndex(page, []byte("</body>"))
	if i < 0 {
		return append(page[:len(page):len(page)], script...)
	}
	out := make([]byte, 0, len(page)+len(script)+1)
	out = append(out, page[:i]...)
	out = append(out, script...)
	out = append(out, '\n')
	return append(out, page[i:]...)
}

// events holds a page's request open and sends "reload" after each
// rebuild, until the page goes away.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported here", http.StatusInternalServerError)
		return
	}
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	s.subs[ch] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.subs, ch)
		s.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprint(w, ": listening for rebuilds\n\n")
	flusher.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-ch:
			fmt.Fprint(w, "data: reload\n\n")
			flusher.Flush()
		}
	}
}
