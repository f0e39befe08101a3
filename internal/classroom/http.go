package classroom

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/classroom/access"
	"github.com/cudalessons/lessons/internal/classroom/cells"
	"github.com/cudalessons/lessons/internal/classroom/queue"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/serve"
)

const (
	classPrefix = "/_class/"
	assetPath   = "/_class/assets/"
	// CookieName is the session's cookie.
	CookieName = "lessons_class"
)

// person is who a request is from.
type person struct {
	ID, Role string
	Via      string // "cookie", "api" (a bearer token), "proxy"
}

// identify says who sent r, or why no one is: a session's cookie or
// bearer token, or the proxy's header on a request from the proxy.
func (c *Class) identify(r *http.Request) (person, string, int) {
	// lessons submit's token, in either mode: behind a proxy, its route
	// to /_class/api/ is let through without the single sign-on.
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		if g, ok := c.keys.Session(tok); ok && g.Kind == "api" {
			return c.onRoster(person{ID: g.Who, Role: g.Role, Via: "api"})
		}
		return person{}, "class: the token is not valid (expired, or replaced): get a new one from the page", http.StatusUnauthorized
	}
	if c.cfg.ProxyHeader != "" {
		name := r.Header.Get(c.cfg.ProxyHeader)
		if ok, why := c.fromProxy(r); !ok {
			if name != "" {
				return person{}, why, http.StatusForbidden
			}
			return person{}, "class: this server is reached through the class's sign-in proxy", http.StatusForbidden
		}
		if name == "" {
			return person{}, "class: the proxy sent no " + c.cfg.ProxyHeader + ": sign in through it", http.StatusUnauthorized
		}
		// A proxy that adds its header to the browser's rather than
		// replacing it would pass the browser's first, and Get reads the
		// first: whoever the browser named.
		if n := len(r.Header.Values(c.cfg.ProxyHeader)); n > 1 || strings.Contains(name, ",") {
			return person{}, fmt.Sprintf("class: %s came %d times (or as a list): the proxy must replace the browser's %s, not add to it; fix its configuration", c.cfg.ProxyHeader, n, c.cfg.ProxyHeader), http.StatusBadRequest
		}
		for _, in := range c.cfg.Instructors {
			if strings.EqualFold(in, name) {
				return person{ID: access.RoleInstructor, Role: access.RoleInstructor, Via: "proxy"}, "", 0
			}
		}
		if _, ok := c.roster[name]; ok {
			return person{ID: name, Role: access.RoleStudent, Via: "proxy"}, "", 0
		}
		if id, ok := c.byEmail[strings.ToLower(name)]; ok {
			return person{ID: id, Role: access.RoleStudent, Via: "proxy"}, "", 0
		}
		return person{}, "class: " + name + " is not on this class's roster: ask the instructor", http.StatusForbidden
	}
	ck, err := r.Cookie(CookieName)
	if err != nil {
		return person{}, "", http.StatusUnauthorized
	}
	g, ok := c.keys.Session(ck.Value)
	if !ok || g.Kind != "cookie" {
		return person{}, "class: your sign-in has ended: open your sign-in link again, or ask the instructor for a new one", http.StatusUnauthorized
	}
	return c.onRoster(person{ID: g.Who, Role: g.Role, Via: "cookie"})
}

// onRoster refuses a session of a student the roster no longer names
// (taken off it, and the server restarted).
func (c *Class) onRoster(p person) (person, string, int) {
	if _, ok := c.roster[p.ID]; p.Role == access.RoleStudent && !ok {
		return person{}, "class: " + p.ID + " is not on this class's roster any more: ask the instructor", http.StatusForbidden
	}
	return p, "", 0
}

// crossSite refuses what a page of another site makes the browser send
// (the cookie goes only with same-site requests, SameSite=Strict; this
// holds where a browser is older or the proxy signs in): a request that
// changes anything must carry this server's Origin, and no script, style
// or stream may be loaded from elsewhere.
func (c *Class) crossSite(r *http.Request, p person) string {
	if p.Via == "api" {
		return "" // a bearer token is never sent by a browser on its own
	}
	site, mode := r.Header.Get("Sec-Fetch-Site"), r.Header.Get("Sec-Fetch-Mode")
	if site != "" && site != "same-origin" && site != "none" && mode != "navigate" {
		return "class: a page of another site (Sec-Fetch-Site: " + site + ") may not load this"
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return ""
	}
	o := r.Header.Get("Origin")
	u, err := url.Parse(o)
	if o == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || (u.Host != r.Host && !c.namedHost(u)) {
		return "class: Origin " + o + " is not this server: a page of another site may not change anything here"
	}
	return ""
}

// namedHost tells whether an Origin is one of the names the class is
// reached by (--host), port and all: a page on another port of the same
// host (a student's web server on the GPU machine) is same-site, so the
// proxy's sign-on cookie goes with its posts, but it is not this server.
func (c *Class) namedHost(u *url.URL) bool {
	for _, h := range c.cfg.Hosts {
		h = strings.ToLower(h)
		if _, _, err := net.SplitHostPort(h); err == nil {
			if strings.ToLower(u.Host) == h {
				return true
			}
		} else if strings.ToLower(u.Hostname()) == h && u.Port() == "" {
			return true
		}
	}
	return false
}

func (c *Class) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	// Not no-referrer: under it a form's POST says Origin: null, and the
	// sign-in form would be refused as another site's.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	if r.TLS != nil {
		h.Set("Strict-Transport-Security", "max-age=31536000")
	}
	from := remoteIP(r.RemoteAddr)
	switch r.URL.Path {
	case classPrefix + "signin":
		c.signin(w, r, from)
		return
	case assetPath + "class.js", assetPath + "instructor.js":
		data, _ := assets.ReadFile("assets/" + strings.TrimPrefix(r.URL.Path, assetPath))
		h.Set("Content-Type", "text/javascript; charset=utf-8")
		w.Write(data)
		return
	}
	p, msg, code := c.identify(r)
	if code != 0 {
		if msg == "" {
			msg = "class: sign in first, with the link your instructor gave you"
		}
		if code == http.StatusUnauthorized && c.cfg.ProxyHeader == "" && r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, classPrefix+"api/") && !strings.HasPrefix(r.URL.Path, serve.APIPrefix) {
			c.page401(w, msg)
			return
		}
		http.Error(w, msg, code)
		return
	}
	if msg := c.crossSite(r, p); msg != "" {
		c.audit.Log(p.ID, from, "refused", msg)
		http.Error(w, msg, http.StatusForbidden)
		return
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, classPrefix); ok {
		c.classAPI(w, r, p, from, rest)
		return
	}
	if p.Role == access.RoleInstructor && r.URL.Path == "/" {
		http.Redirect(w, r, classPrefix+"instructor", http.StatusSeeOther)
		return
	}
	if p.Via == "api" {
		http.Error(w, "class: a token of lessons submit opens no pages", http.StatusForbidden)
		return
	}
	// The student's own page server. Its token is the class's to give:
	// what a request carries in ?token= or the header is replaced, so a
	// token read from another student's page opens only one's own.
	srv, tok := c.page(p.ID)
	r2 := r.Clone(r.Context())
	r2.Header.Set(serve.TokenHeader, tok)
	// The Origin was checked above, against the names the class is
	// reached by too: a proxy that sends its own Host (127.0.0.1:3000)
	// must not make the page's own check refuse it.
	if r.Header.Get("Origin") != "" {
		r2.Header.Set("Origin", "http://"+r.Host)
	}
	if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, serve.APIPrefix) {
		op := strings.TrimPrefix(r.URL.Path, serve.APIPrefix)
		// The op names the audit log's action: one the page cannot do
		// ("submitted", "signin") would be a line in the server's name.
		if !serve.PagePosts(op) {
			http.Error(w, "class: no such request: "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		// The log says which page, cell or exercise: the body is read
		// here and handed on as it was.
		body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
		if err != nil {
			http.Error(w, "class: the request's body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r2.Body = io.NopCloser(bytes.NewReader(body))
		var what struct {
			Page     string `json:"page"`
			Cell     int    `json:"cell"`
			Exercise string `json:"exercise"`
		}
		json.Unmarshal(body, &what)
		detail := strings.TrimSpace(fmt.Sprintf("%s %s", what.Page, what.Exercise))
		if what.Cell != 0 {
			detail += fmt.Sprintf(" [%d]", what.Cell)
		}
		if err := c.audit.Log(p.ID, from, op, detail); err != nil {
			http.Error(w, "class: "+err.Error()+": nothing is done unrecorded; tell the instructor", http.StatusInternalServerError)
			return
		}
		c.touch(p.ID, op)
	}
	srv.ServeHTTP(w, r2)
}

func (c *Class) page401(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusUnauthorized)
	fmt.Fprintf(w, "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Sign in</title></head><body><h1>Sign in</h1><p>%s</p></body></html>\n", html.EscapeString(msg))
}

// signin shows the sign-in page of a link (GET), and redeems the link
// (POST, from that page): a mail scanner that follows the link uses
// nothing.
func (c *Class) signin(w http.ResponseWriter, r *http.Request, from string) {
	if c.cfg.ProxyHeader != "" {
		http.Error(w, "class: sign in through the class's proxy", http.StatusNotFound)
		return
	}
	switch r.Method {
	case http.MethodGet:
		link := r.URL.Query().Get("link")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in to %s</title></head><body><h1>%s</h1>
<form method="post" action="%ssignin"><input type="hidden" name="link" value="%s"><button id="signin" type="submit">Sign in</button></form>
<p>This link works once; it signs this browser in for %d days.</p></body></html>
`, html.EscapeString(c.course.Title), html.EscapeString(c.course.Title), classPrefix, html.EscapeString(link), int(access.SessionLife/(24*time.Hour)))
	case http.MethodPost:
		if msg := c.crossSite(r, person{}); msg != "" {
			c.audit.Log("-", from, "signin refused", msg)
			http.Error(w, msg, http.StatusForbidden)
			return
		}
		if ok, wait := c.limiter.Allow(from); !ok {
			c.audit.Log("-", from, "signin limited", "")
			w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())+1))
			http.Error(w, fmt.Sprintf("class: too many sign-in attempts from %s: try again in %s", from, wait.Round(time.Second)), http.StatusTooManyRequests)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, 4096)
		sess, g, err := c.keys.Redeem(r.FormValue("link"))
		if err != nil {
			c.limiter.Failed(from)
			c.audit.Log("-", from, "signin failed", "")
			c.page401(w, err.Error())
			return
		}
		if err := c.audit.Log(g.Who, from, "signin", g.Role); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: CookieName, Value: sess, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
			Secure: c.overTLS(r), MaxAge: int(access.SessionLife.Seconds())})
		http.Redirect(w, r, "/", http.StatusSeeOther)
	default:
		http.Error(w, "only GET and POST", http.StatusMethodNotAllowed)
	}
}

func reply(w http.ResponseWriter, v any, err error) {
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		code := http.StatusBadRequest
		var full *queue.FullError
		var budget *queue.BudgetError
		var disk *cells.DiskError
		if errors.As(err, &full) || errors.As(err, &budget) || errors.As(err, &disk) {
			code = http.StatusTooManyRequests
		}
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
		return
	}
	json.NewEncoder(w).Encode(v)
}

// classAPI answers the class's own requests: a student's files, Submit,
// the queue, the token of lessons submit, sign-out, and the
// instructor's.
func (c *Class) classAPI(w http.ResponseWriter, r *http.Request, p person, from, op string) {
	if strings.HasPrefix(op, "instructor") || strings.HasPrefix(op, "export") {
		if p.Role != access.RoleInstructor {
			c.audit.Log(p.ID, from, "refused", op)
			http.Error(w, "class: the instructor's only", http.StatusForbidden)
			return
		}
		c.instructor(w, r, p, from, op)
		return
	}
	var req struct {
		Exercise string  `json:"exercise"`
		Text     *string `json:"text"`
	}
	if r.Method == http.MethodPost {
		if err := json.NewDecoder(io.LimitReader(r.Body, 2<<20)).Decode(&req); err != nil && err != io.EOF {
			reply(w, nil, fmt.Errorf("class: the request is not JSON: %v", err))
			return
		}
	} else {
		req.Exercise = r.URL.Query().Get("exercise")
	}
	switch {
	case op == "api/me" && r.Method == http.MethodGet:
		s := c.roster[p.ID]
		reply(w, map[string]string{"id": p.ID, "name": s.Name, "role": p.Role}, nil)
	case op == "api/file" && r.Method == http.MethodGet:
		x, err := c.exercise(req.Exercise)
		if err != nil {
			reply(w, nil, err)
			return
		}
		data, err := c.readCopy(p.ID, x)
		reply(w, map[string]string{"exercise": x.ID, "name": fileName(x), "text": string(data)}, err)
	case op == "api/file" && r.Method == http.MethodPost:
		x, err := c.exercise(req.Exercise)
		if err == nil && req.Text == nil {
			err = errors.New("class: no text to save")
		}
		if err == nil {
			err = c.audit.Log(p.ID, from, "save", x.ID)
		}
		if err == nil {
			err = c.writeCopy(p.ID, x, *req.Text)
			c.touch(p.ID, "save "+x.ID)
		}
		reply(w, map[string]bool{"saved": true}, err)
	case op == "api/submit" && r.Method == http.MethodPost:
		res, err := c.submit(r, p, from, req.Exercise, req.Text)
		reply(w, res, err)
	case op == "api/check" && r.Method == http.MethodPost:
		v, err := c.remoteCheck(r, p, from, req.Exercise, req.Text)
		reply(w, v, err)
	case op == "api/history" && r.Method == http.MethodGet:
		as, err := c.book.History(p.ID, req.Exercise)
		reply(w, historyOf(as), err)
	case op == "api/queue" && r.Method == http.MethodGet:
		place, waiting, running, est := c.queue.Mine(p.ID)
		reply(w, map[string]any{"place": place, "waiting": waiting, "running": running, "estimateMS": est.Milliseconds()}, nil)
	case op == "api/token" && r.Method == http.MethodPost && p.Via != "api":
		tok, err := c.keys.Open(p.ID, p.Role, "api")
		if err == nil {
			err = c.audit.Log(p.ID, from, "token", "")
		}
		reply(w, map[string]string{"token": tok}, err)
	case op == "signout" && r.Method == http.MethodPost && p.Via == "cookie":
		ck, _ := r.Cookie(CookieName)
		err := c.keys.Close(ck.Value)
		c.audit.Log(p.ID, from, "signout", "")
		http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: -1})
		reply(w, map[string]bool{"signedOut": true}, err)
	default:
		http.Error(w, "class: no such request: "+r.Method+" "+r.URL.Path, http.StatusNotFound)
	}
}

// SubmitResult is what Submit answers: the attempt recorded and its
// feedback, as lessons grade feedback writes it.
type SubmitResult struct {
	Attempt  int64  `json:"attempt"`
	Status   string `json:"status"`
	Points   int    `json:"points"`
	Max      int    `json:"max"`
	Feedback string `json:"feedback"`
	// FeedbackHTML is the same as HTML, for the page to show as a page.
	FeedbackHTML string `json:"feedbackHTML"`
}

// submit grades the student's copy of an exercise (saving text first
// when given, as lessons submit sends it) with the hidden checks, and
// records it in the gradebook before answering.
func (c *Class) submit(r *http.Request, p person, from, id string, text *string) (*SubmitResult, error) {
	if p.Role != access.RoleStudent {
		return nil, errors.New("class: the instructor's files are not graded into the class's gradebook: use Check, or a student's link")
	}
	x, err := c.exercise(id)
	if err != nil {
		return nil, err
	}
	l, _ := c.submitting.LoadOrStore(p.ID+"\x00"+x.ID, make(chan struct{}, 1))
	select {
	case l.(chan struct{}) <- struct{}{}:
		defer func() { <-l.(chan struct{}) }()
	default:
		return nil, fmt.Errorf("class: %s is being submitted already: wait for its feedback", x.ID)
	}
	if text != nil {
		if err := c.audit.Log(p.ID, from, "save", x.ID); err != nil {
			return nil, err
		}
		if err := c.writeCopy(p.ID, x, *text); err != nil {
			return nil, err
		}
	} else if _, err := c.readCopy(p.ID, x); err != nil {
		return nil, err
	}
	if err := c.audit.Log(p.ID, from, "submit", x.ID); err != nil {
		return nil, err
	}
	c.touch(p.ID, "submit "+x.ID)
	a, err := c.grade(r.Context(), p.ID, x, true)
	if err != nil {
		c.audit.Log(p.ID, from, "submit stopped", x.ID+": "+err.Error())
		return nil, err
	}
	if err := c.book.Record(a); err != nil {
		return nil, fmt.Errorf("class: record the submission in %s: %w", c.book.Path, err)
	}
	c.audit.Log(p.ID, from, "submitted", fmt.Sprintf("%s #%d %s %d/%d", x.ID, a.ID, a.Status, a.Points, a.MaxPoints))
	c.noteStatus(p.ID, "submit "+x.ID, x.ID, a.Status)
	sheet := &gradebook.Sheet{Exercises: []gradebook.Exercise{{ID: x.ID, Points: a.MaxPoints}}, Students: []string{p.ID},
		Grades: map[string]map[string]*gradebook.Attempt{p.ID: {x.ID: a}}, Max: a.MaxPoints, Hidden: c.cfg.Hidden}
	frag, err := sheet.FeedbackFragment(p.ID)
	if err != nil {
		return nil, err
	}
	return &SubmitResult{Attempt: a.ID, Status: a.Status, Points: a.Points, Max: a.MaxPoints, Feedback: sheet.Feedback(p.ID), FeedbackHTML: frag}, nil
}

// historyOf is a student's submissions of an exercise as the pages list them.
func historyOf(as []*gradebook.Attempt) []map[string]any {
	out := []map[string]any{}
	for _, a := range as {
		out = append(out, map[string]any{"id": a.ID, "status": a.Status, "points": a.Points, "max": a.MaxPoints, "at": a.GradedAt})
	}
	return out
}

// overTLS tells whether the browser reached the server over TLS: this
// server's own, or the proxy's (X-Forwarded-Proto: https, believed from
// the proxy only).
func (c *Class) overTLS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	ok, _ := c.fromProxy(r)
	return ok && r.Header.Get("X-Forwarded-Proto") == "https"
}
