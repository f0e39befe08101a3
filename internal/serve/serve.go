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
	"encoding/json"
	"fmt"
	"html"
	"mime"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync"
)

// ReloadPath is where pages listen for reloads.
const ReloadPath = "/_lessons/reload"

// MaxStreams is how many pages may listen at once (for reloads and
// verdicts), by default: each holds a request open, and past this a
// server would hold whatever a script on the machine opens.
const MaxStreams = 64

// keepToken is the start of the script of every page: a link written
// after the page was served (a search result) gets the token when it is
// followed, as the server gave it to the page's own links.
const keepToken = `(function () { var q = %s; document.addEventListener("click", function (e) { var a = e.target.closest && e.target.closest("a[href]"); if (!a) return; var u = new URL(a.href, location.href); if (u.origin === location.origin && u.searchParams.get("token") !== q) { u.searchParams.set("token", q); a.href = u.toString(); } }, true); })();`

// reloadScript goes at the end of every page served.
func (s *Server) reloadScript() string {
	return "<script>" + fmt.Sprintf(keepToken, jsString(s.guard.token)) + `new EventSource("` + ReloadPath + "?token=" + url.QueryEscape(s.guard.token) + `").onmessage = function () { location.reload(); };</script>`
}

// Server serves the site that Build renders, as of the last Rebuild.
type Server struct {
	build func() (map[string][]byte, error)

	mu   sync.Mutex
	site map[string][]byte
	err  error // why the last build failed; the site is then an error page
	gen  int   // how many builds: a page of an older one reloads
	subs map[chan struct{}]struct{}
	// streams is how many pages listen, of at most maxStreams.
	streams, maxStreams int

	guard guard
	nb    *Notebook // nil: a read-only site
	check Checker   // nil: no Check in the page
	feed  feed      // verdicts pushed to the pages
	// checking holds a lock for each exercise being checked.
	checking sync.Map
	// pageScript is more script for every page (the class's Submit, its
	// queue), after the notebook's.
	pageScript string
}

// New renders the site once and serves it, to this machine's names only
// (see AllowHost) and with a fresh random token.
func New(build func() (map[string][]byte, error)) *Server {
	s := &Server{build: build, subs: map[chan struct{}]struct{}{}, guard: newGuard(), maxStreams: MaxStreams}
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

// SetMaxStreams sets how many pages may listen at once (MaxStreams by
// default); past it a page is answered 503.
func (s *Server) SetMaxStreams(n int) { s.maxStreams = n }

// openStream takes a stream's place, or says why there is none.
func (s *Server) openStream(w http.ResponseWriter) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.streams >= s.maxStreams {
		w.Header().Set("Retry-After", "10")
		http.Error(w, fmt.Sprintf("serve: %d pages already listen for reloads, the most this server keeps open: close some of its tabs (or scripts) and reload", s.maxStreams), http.StatusServiceUnavailable)
		return false
	}
	s.streams++
	return true
}

func (s *Server) closeStream() {
	s.mu.Lock()
	s.streams--
	s.mu.Unlock()
}

// SetNotebook lets pages run their lesson's cells through nb.
func (s *Server) SetNotebook(nb *Notebook) { s.nb = nb }

// SetPageScript adds the script at src (a path of this server) to
// every page, after the notebook's own: the class mode's additions.
func (s *Server) SetPageScript(src string) {
	s.pageScript = `<script src="` + html.EscapeString(src) + `"></script>`
}

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
	h := w.Header()
	// No page of another site may frame this one (a click on a framed
	// Run all runs cells) or load what it serves (a <script> of another
	// site reading the lessons' search index); and the token in the URL
	// is never sent to another site as a Referer.
	h.Set("Content-Security-Policy", "frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if msg, code := s.guard.host(r); msg != "" {
		http.Error(w, msg, code)
		return
	}
	if msg, code := s.guard.any(r); msg != "" {
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
	s.mu.Lock()
	site, err, gen := s.site, s.err, s.gen
	s.mu.Unlock()
	w.Header().Set("Cache-Control", "no-store")
	if err != nil {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>The course does not build</title></head>\n<body><h1>The course does not build</h1>\n<p>Fix this and save: the page reloads by itself.</p>\n<pre>%s</pre>\n%s\n</body></html>\n", html.EscapeString(err.Error()), s.reloadScript())
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
		data = s.withToken(s.withScripts(data, gen))
	}
	w.Write(data)
}

// withScripts puts the reload script, or the notebook's when there is
// one (it listens for reloads and verdicts on one stream: a browser keeps
// only six connections to a server open), at the end of a page's body.
func (s *Server) withScripts(page []byte, gen int) []byte {
	if s.nb != nil || s.check != nil {
		return withScript(page, s.notebookScripts(gen)+s.pageScript)
	}
	if s.pageScript != "" {
		return withScript(page, s.reloadScript()+domScript+s.pageScript)
	}
	return withScript(page, s.reloadScript())
}

// jsString is s as a JavaScript string that is safe inside <script>.
func jsString(s string) string {
	b, _ := json.Marshal(s) // escapes <, > and & too
	return string(b)
}

// attrURL is a link or a source in a page: href="..." or src="...".
var attrURL = regexp.MustCompile(`\b(href|src)="([^"]*)"`)

// withToken puts the token in every URL of page that leads to this
// server (style.css, search-index.js, day002-b.html, /_lessons/...), so
// that its scripts and styles load and its links open, while any other
// request without the token is refused.
func (s *Server) withToken(page []byte) []byte {
	tok := html.EscapeString(url.QueryEscape(s.guard.token))
	return attrURL.ReplaceAllFunc(page, func(m []byte) []byte {
		sub := attrURL.FindSubmatch(m)
		u := string(sub[2])
		if u == "" || strings.HasPrefix(u, "#") || strings.HasPrefix(u, "//") || scheme(u) {
			return m
		}
		frag := ""
		if i := strings.IndexByte(u, '#'); i >= 0 {
			u, frag = u[:i], u[i:]
		}
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&amp;"
		}
		return []byte(string(sub[1]) + `="` + u + sep + "token=" + tok + frag + `"`)
	})
}

// scheme tells whether u names a scheme (https:, mailto:, data:): a
// colon before any / ? or #.
func scheme(u string) bool {
	i := strings.IndexAny(u, ":/?#")
	return i > 0 && u[i] == ':'
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
	if !s.openStream(w) {
		return
	}
	defer s.closeStream()
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
