package serve

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/cudalessons/lessons/internal/timeline"
)

const (
	apiPrefix   = APIPrefix
	assetPrefix = "/_lessons/assets/"
)

// APIPrefix is where the page's API is served: APIPrefix + an operation.
const APIPrefix = "/_lessons/api/"

// pageAPI is the page's API, each operation with its method: the one list
// that the page's server answers (anything else is no such request) and
// that the class server passes on (PagePosts).
var pageAPI = map[string]string{
	"events": http.MethodGet, "cells": http.MethodGet, "exercises": http.MethodGet,
	"run": http.MethodPost, "stop": http.MethodPost, "restart": http.MethodPost,
	"edit": http.MethodPost, "reset": http.MethodPost, "check": http.MethodPost,
}

// PagePosts reports whether op is an operation of the page's API that a
// page posts (run, stop, restart, edit, reset, check).
func PagePosts(op string) bool { return pageAPI[op] == http.MethodPost }

//go:embed assets
var assets embed.FS

// notebookScripts are the notebook's script and style, and the token the
// page carries.
func (s *Server) notebookScripts(gen int) string {
	return fmt.Sprintf(`<meta name="lessons-token" content="%s"><meta name="lessons-build" content="%d"><link rel="stylesheet" href="%snotebook.css"><script>`+keepToken+`</script>%s<script src="%snotebook.js"></script>`,
		html.EscapeString(s.guard.token), gen, assetPrefix, jsString(s.guard.token), domScript, assetPrefix)
}

// domScript is the page's DOM helpers (assets/dom.js), the one copy that
// the notebook's script and a page script (the class's) both use.
const domScript = `<script src="` + assetPrefix + `dom.js"></script>`

// Checker checks exercises for the page, as lessons check does.
type Checker interface {
	// Exercises are the exercises of a lesson's page, with their status.
	Exercises(page string) ([]Exercise, error)
	// Check checks an exercise's file and gives its verdict; progress is
	// saved when it passes.
	Check(ctx context.Context, id string) (*Verdict, error)
	// Files are the files each exercise is checked from (its file, its
	// spec, the files it names): saving one re-checks it.
	Files() map[string][]string
}

// Exercise is an exercise as the page lists it.
type Exercise struct {
	ID      string `json:"id"`
	Student string `json:"student"`
	Passed  bool   `json:"passed"`
	Hint    string `json:"hint,omitempty"`
}

// Verdict is a check's result, every check of it.
type Verdict struct {
	Exercise string        `json:"exercise"`
	Passed   bool          `json:"passed"`
	Score    int           `json:"score"`
	Points   int           `json:"points"`
	Checks   []CheckResult `json:"checks"`
	Hints    []string      `json:"hints,omitempty"`
	// Hidden is how many more checks run when the exercise is graded
	// (never what they are).
	Hidden int `json:"hidden,omitempty"`
	// Error says why the exercise could not be checked (no GPU, a bad
	// spec); Checks is then empty.
	Error string `json:"error,omitempty"`
	// Output is the program's or the compiler's output.
	Output string `json:"output,omitempty"`
	// Trigger is "page" for a Check pressed, "save" for a file saved.
	Trigger string `json:"trigger"`
	// Timeline is the run's timeline (internal/timeline), drawn for each
	// of the page's themes: shown as images, never as markup.
	Timeline *Timeline `json:"timeline,omitempty"`
}

// Timeline is a run's timeline as SVG pictures, one per theme, and its
// summary in words (the pictures' alternative text).
type Timeline struct {
	Light   string `json:"light"`
	Dark    string `json:"dark"`
	Summary string `json:"summary"`
}

// Pictures draws a run's trace for the page and the feedback, one
// picture per theme; nil when there is no trace (or it cannot be read).
func Pictures(trace []byte) *Timeline {
	if len(trace) == 0 {
		return nil
	}
	tl, err := timeline.Parse(trace)
	if err != nil {
		return nil
	}
	return &Timeline{Light: timeline.SVG(tl, timeline.SVGOptions{Theme: "light"}), Dark: timeline.SVG(tl, timeline.SVGOptions{Theme: "dark"}), Summary: tl.Summary()}
}

// CheckResult is one check of a verdict. Got quotes what was seen, a
// race or sanitizer finding included.
type CheckResult struct {
	Name    string `json:"name"`
	Pass    bool   `json:"pass"`
	Skipped bool   `json:"skipped,omitempty"`
	Want    string `json:"want,omitempty"`
	Got     string `json:"got,omitempty"`
	Points  int    `json:"points,omitempty"`
	Hint    string `json:"hint,omitempty"`
}

// feed pushes verdicts to every open page.
type feed struct {
	mu   sync.Mutex
	subs map[chan []byte]struct{}
}

// push sends a verdict to every page that listens.
func (s *Server) push(v *Verdict) {
	data, _ := json.Marshal(v)
	s.feed.send([]byte("event: verdict\ndata: " + string(data) + "\n\n"))
}

func (f *feed) send(msg []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for ch := range f.subs {
		select {
		case ch <- msg:
		default: // a page that does not read loses messages, not the others
		}
	}
}

// checkAndPush checks an exercise and pushes its verdict to every page.
func (s *Server) checkAndPush(ctx context.Context, id, trigger string) (*Verdict, error) {
	// Two checks of one exercise would share its folder: one at a time.
	l, _ := s.checking.LoadOrStore(id, &sync.Mutex{})
	l.(*sync.Mutex).Lock()
	defer l.(*sync.Mutex).Unlock()
	v, err := s.check.Check(ctx, id)
	if err != nil {
		v = &Verdict{Exercise: id, Error: err.Error()}
	}
	v.Trigger = trigger
	if ctx.Err() == nil {
		s.push(v)
	}
	return v, nil
}

func (s *Server) api(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if name, ok := strings.CutPrefix(r.URL.Path, assetPrefix); ok {
		data, err := assets.ReadFile("assets/" + path.Base(name))
		if err != nil || path.Base(name) != name {
			http.NotFound(w, r)
			return
		}
		ctype := "text/css; charset=utf-8"
		if strings.HasSuffix(name, ".js") {
			ctype = "text/javascript; charset=utf-8"
		}
		w.Header().Set("Content-Type", ctype)
		w.Write(data)
		return
	}
	op := strings.TrimPrefix(r.URL.Path, apiPrefix)
	if r.Method == http.MethodGet {
		if msg, code := s.guard.read(r); msg != "" {
			http.Error(w, msg, code)
			return
		}
	} else {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "GET, POST")
			http.Error(w, "only GET and POST", http.StatusMethodNotAllowed)
			return
		}
		if msg, code := s.guard.write(r); msg != "" {
			http.Error(w, msg, code)
			return
		}
	}
	if pageAPI[op] != r.Method {
		http.Error(w, "serve: no such request: "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	var req struct {
		Page     string `json:"page"`     // the lesson's page: day070-pools
		Session  string `json:"session"`  // the open page: its runs are its own
		Cell     int    `json:"cell"`     // a cell's number
		Text     string `json:"text"`     // an edit
		Exercise string `json:"exercise"` // an exercise's id
		Timeline bool   `json:"timeline"` // a run traced for its timeline
	}
	if r.Method == http.MethodPost {
		if err := json.NewDecoder(io.LimitReader(r.Body, 4<<20)).Decode(&req); err != nil {
			http.Error(w, "serve: the request is not JSON: "+err.Error(), http.StatusBadRequest)
			return
		}
	} else {
		req.Page = r.URL.Query().Get("page")
	}
	req.Page = strings.TrimSuffix(req.Page, ".html")
	needNB := map[string]bool{"run": true, "stop": true, "restart": true, "edit": true, "reset": true, "cells": true}
	if needNB[op] && s.nb == nil {
		http.Error(w, "serve: this server does not run cells", http.StatusNotFound)
		return
	}
	if (op == "check" || op == "exercises") && s.check == nil {
		http.Error(w, "serve: this server does not check exercises", http.StatusNotFound)
		return
	}
	switch {
	case op == "events" && r.Method == http.MethodGet:
		s.verdicts(w, r)
	case op == "cells" && r.Method == http.MethodGet:
		if s.nb.Library != nil && !s.nb.CompileOnly {
			w.Header().Set("X-Lessons-Timelines", "1") // the page shows its Timelines toggle
		}
		cells, err := s.nb.cells(req.Page)
		reply(w, cells, err)
	case op == "exercises" && r.Method == http.MethodGet:
		xs, err := s.check.Exercises(req.Page)
		reply(w, xs, err)
	case op == "run" && r.Method == http.MethodPost:
		s.run(w, r, req.Page, req.Session, req.Cell, req.Timeline)
	case op == "stop" && r.Method == http.MethodPost:
		n := s.nb.stop(func(r *run) bool { return req.Session != "" && r.page == req.Session })
		reply(w, map[string]int{"stopped": n}, nil)
	case op == "restart" && r.Method == http.MethodPost:
		reply(w, map[string]bool{"restarted": true}, s.nb.restart(req.Page))
	case op == "edit" && r.Method == http.MethodPost:
		reply(w, map[string]bool{"saved": true}, s.nb.edit(req.Page, req.Cell, req.Text))
	case op == "reset" && r.Method == http.MethodPost:
		text, err := s.nb.reset(req.Page, req.Cell)
		reply(w, map[string]string{"text": text}, err)
	case op == "check" && r.Method == http.MethodPost:
		v, err := s.checkAndPush(r.Context(), req.Exercise, "page")
		reply(w, v, err)
	default:
		http.Error(w, "serve: no such request: "+r.Method+" "+r.URL.Path, http.StatusNotFound)
	}
}

func reply(w http.ResponseWriter, v any, err error) {
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
		return
	}
	json.NewEncoder(w).Encode(v)
}

// run runs a cell and streams its events, one JSON object a line. The run
// belongs to the request: a page that goes away stops it.
func (s *Server) run(w http.ResponseWriter, r *http.Request, page, session string, cell int, traced bool) {
	rc := http.NewResponseController(w)
	out := newStream(session)
	type result struct {
		end *event
		err error
	}
	ended := make(chan result, 1)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		e, err := s.nb.start(ctx, page, cell, traced, out)
		ended <- result{e, err}
	}()
	w.Header().Set("Content-Type", "application/x-ndjson")
	enc := json.NewEncoder(w)
	send := func(evs []event) bool {
		// A page that stops reading is dropped after a while; its run
		// with it. Other pages never wait for it.
		rc.SetWriteDeadline(time.Now().Add(time.Minute))
		for _, e := range evs {
			if enc.Encode(e) != nil {
				return false
			}
		}
		return rc.Flush() == nil
	}
	for {
		select {
		case <-out.wake:
			if !send(out.take()) {
				cancel()
			}
		case r := <-ended:
			if r.err != nil {
				reply(w, nil, r.err)
				return
			}
			send(append(out.take(), *r.end))
			return
		}
	}
}

// verdicts streams pushed verdicts and reloads to a page as server-sent
// events.
func (s *Server) verdicts(w http.ResponseWriter, r *http.Request) {
	if !s.openStream(w) {
		return
	}
	defer s.closeStream()
	rc := http.NewResponseController(w)
	ch := make(chan []byte, 16)
	s.feed.mu.Lock()
	s.feed.subs[ch] = struct{}{}
	s.feed.mu.Unlock()
	defer func() {
		s.feed.mu.Lock()
		delete(s.feed.subs, ch)
		s.feed.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	// The build the page should show: one that was hidden while the site
	// was rebuilt reloads when it listens again.
	s.mu.Lock()
	gen := s.gen
	s.mu.Unlock()
	fmt.Fprintf(w, "event: hello\ndata: %d\n\n", gen)
	if rc.Flush() != nil {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case msg := <-ch:
			rc.SetWriteDeadline(time.Now().Add(time.Minute))
			if _, err := w.Write(msg); err != nil || rc.Flush() != nil {
				return
			}
		}
	}
}
