package classroom

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/classroom/access"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/render"
	"github.com/cudalessons/lessons/internal/runner"
)

// The course of these tests: one lesson whose cell prints, and one
// exercise with a visible check and a hidden one.
var testCourse = map[string]string{
	"course.toml": `title = "Test class"

[[lesson]]
file = "lessons/day001-hello.md"

[[exercise]]
id = "pool"
lesson = "day001"
student = "exercises/day001/pool.cu"
solution = "solutions/day001/pool.cu"
`,
	"lessons/day001-hello.md":    "# Day 1: Hello\n\n```sh run\necho hello from the class\n```\n",
	"exercises/day001/pool.cu":   "// TODO: write the pool\nint main() { return 0; }\n",
	"exercises/day001/pool.toml": "points = 10\n\n[[check]]\nname = \"says DONE\"\ncontains = \"DONE\"\nhint = \"print DONE\"\n\n[[check]]\nname = \"the secret\"\ncontains = \"HIDDEN\"\nhidden = true\n",
	"solutions/day001/pool.cu":   "int main() { /* DONE HIDDEN */ }\n",
}

// fakeTools builds and runs by reading the file: "syntax error" does
// not compile; a check passes when the file holds what it looks for.
type fakeTools struct {
	mu     sync.Mutex
	builds int
	runs   int
	// hold, when set, is waited on by each run (a run that is slow),
	// and started is told of each run as it starts.
	hold    chan struct{}
	started chan string
}

func (f *fakeTools) Build(ctx context.Context, t *grade.Task, slot int) *grade.Built {
	f.mu.Lock()
	f.builds++
	f.mu.Unlock()
	if strings.Contains(string(t.Source), "syntax error") {
		return &grade.Built{Failed: []checker.Result{{Name: "compiles", Want: "the file to compile", Got: "error at pool.cu:1"}}}
	}
	return &grade.Built{Prog: "prog"}
}

func (f *fakeTools) Run(ctx context.Context, t *grade.Task, b *grade.Built, dev string, slot int) (*grade.Ran, error) {
	f.mu.Lock()
	f.runs++
	hold, started := f.hold, f.started
	f.mu.Unlock()
	if started != nil {
		started <- t.Student
	}
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
		}
	}
	var res []checker.Result
	for i := range t.Spec.Checks {
		c := &t.Spec.Checks[i]
		res = append(res, checker.Result{Check: c, Name: c.Name, Pass: strings.Contains(string(t.Source), c.Contains), Want: c.Contains, Got: "something else"})
	}
	if strings.Contains(string(t.Source), "SKIPPED") && len(res) > 0 {
		res[0] = checker.Result{Check: res[0].Check, Name: res[0].Name, Pass: true, Skipped: true, Got: "skipped: no compute-sanitizer here"}
	}
	return &grade.Ran{Results: res, Output: "ran\n"}, nil
}

// fakeClock is the class's clock in tests, moved on by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *fakeClock               { return &fakeClock{t: time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)} }

type testClass struct {
	t     *testing.T
	class *Class
	srv   *httptest.Server
	clock *fakeClock
	tools *fakeTools
	dir   string
}

func writeTree(t testing.TB, root string, files map[string]string) {
	for name, body := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func testConfig(t testing.TB, tools grade.Toolchain, clock func() time.Time) Config {
	root := t.TempDir()
	writeTree(t, root, testCourse)
	c, err := course.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return Config{
		Course: c, Dir: t.TempDir(),
		Roster: []Student{{ID: "ann", Name: "Ann", Email: "ann@uni.example"}, {ID: "bob", Name: "Bob"}},
		Site:   func() (map[string][]byte, error) { return render.Site(c) },
		Env: func(ws string) (notebook.Env, error) {
			return notebook.Env{Runner: runner.Exec{}}, nil
		},
		Cells:     func(ws string, slot int) runner.Runner { return runner.Exec{} },
		Toolchain: tools, Jobs: 2, Devices: []string{"0"}, PerDevice: 2, Timeout: time.Minute,
		Clock: clock,
	}
}

func newTestClass(t *testing.T, edit func(*Config)) *testClass {
	t.Helper()
	tc := &testClass{t: t, clock: newClock(), tools: &fakeTools{}}
	cfg := testConfig(t, tc.tools, tc.clock.now)
	if edit != nil {
		edit(&cfg)
	}
	tc.dir = cfg.Dir
	var err error
	if tc.class, err = Open(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tc.class.Close() })
	tc.srv = httptest.NewServer(tc.class)
	t.Cleanup(tc.srv.Close)
	return tc
}

// browser is one person's browser: a cookie jar, and this server's Origin
// on what it posts.
type browser struct {
	t      *testing.T
	base   string
	client *http.Client
	origin string
}

func (tc *testClass) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: tc.t, base: tc.srv.URL, origin: tc.srv.URL,
		client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (tc *testClass) invite(who string) string {
	tc.t.Helper()
	role := access.RoleStudent
	if who == access.RoleInstructor {
		role = access.RoleInstructor
	}
	s, err := tc.class.Keys().Invite(who, role)
	if err != nil {
		tc.t.Fatal(err)
	}
	return s
}

func (b *browser) do(method, path string, body io.Reader, header map[string]string) (int, string) {
	b.t.Helper()
	req, _ := http.NewRequest(method, b.base+path, body)
	if method == http.MethodPost && b.origin != "" {
		req.Header.Set("Origin", b.origin)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(data)
}

func (b *browser) signin(link string) int {
	b.t.Helper()
	code, _ := b.do("POST", "/_class/signin", strings.NewReader(url.Values{"link": {link}}.Encode()), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	return code
}

func (b *browser) post(path string, v any) (int, map[string]any) {
	b.t.Helper()
	data, _ := json.Marshal(v)
	code, body := b.do("POST", path, bytes.NewReader(data), map[string]string{"Content-Type": "application/json"})
	var out map[string]any
	json.Unmarshal([]byte(body), &out)
	return code, out
}

func (b *browser) get(path string) (int, string) { b.t.Helper(); return b.do("GET", path, nil, nil) }

func TestSignInWithALinkOnce(t *testing.T) {
	tc := newTestClass(t, nil)
	link := tc.invite("ann")
	ann := tc.browser()
	if code, _ := ann.get("/"); code != http.StatusUnauthorized {
		t.Fatalf("before sign-in: %d, want 401", code)
	}
	if code, body := ann.get("/_class/signin?link=" + link); code != 200 || !strings.Contains(body, `<form method="post"`) {
		t.Fatalf("the link's page: %d %s", code, body)
	}
	if code := ann.signin(link); code != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", code)
	}
	u, _ := url.Parse(tc.srv.URL)
	cookies := ann.client.Jar.Cookies(u)
	if len(cookies) != 1 || cookies[0].Name != CookieName {
		t.Fatalf("cookies %v", cookies)
	}
	if code, body := ann.get("/"); code != 200 || !strings.Contains(body, "/_class/assets/class.js") {
		t.Fatalf("the contents after sign-in: %d", code)
	}
	// The link again, from another browser: used.
	eve := tc.browser()
	if code := eve.signin(link); code != http.StatusUnauthorized {
		t.Fatalf("a replayed link: %d, want 401", code)
	}
	if code, _ := eve.get("/_class/api/me"); code != http.StatusUnauthorized {
		t.Fatalf("after a replayed link: %d", code)
	}
	// A new link replaces one not yet used.
	old := tc.invite("bob")
	fresh := tc.invite("bob")
	if tc.browser().signin(old) != http.StatusUnauthorized || tc.browser().signin(fresh) != http.StatusSeeOther {
		t.Fatal("an older link of bob's still works, or the fresh one does not")
	}
	// Signed out, the old cookie is nothing.
	sess := ann.client.Jar.Cookies(u)[0]
	if code, _ := ann.post("/_class/signout", map[string]any{}); code != 200 {
		t.Fatalf("sign-out: %d", code)
	}
	if code, _ := ann.do("GET", "/_class/api/me", nil, map[string]string{"Cookie": CookieName + "=" + sess.Value}); code != http.StatusUnauthorized {
		t.Fatalf("the cookie after sign-out: %d", code)
	}
	log, _ := os.ReadFile(filepath.Join(tc.dir, PrivateDir, "audit.log"))
	if !strings.Contains(string(log), `"action":"signin"`) || !strings.Contains(string(log), `"action":"signin failed"`) {
		t.Errorf("audit log:\n%s", log)
	}
}

func TestSessionCookieAttributes(t *testing.T) {
	tc := newTestClass(t, nil)
	link := tc.invite("ann")
	req, _ := http.NewRequest("POST", tc.srv.URL+"/_class/signin", strings.NewReader("link="+link))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", tc.srv.URL)
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	set := res.Header.Get("Set-Cookie")
	for _, want := range []string{"HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(set, want) {
			t.Errorf("Set-Cookie %q lacks %s", set, want)
		}
	}
	if strings.Contains(set, "Secure") {
		t.Errorf("Secure on plain HTTP: %q (TLS sets it)", set)
	}
}

func TestForgedOrMissingSessionRefused(t *testing.T) {
	tc := newTestClass(t, nil)
	b := tc.browser()
	for _, tc2 := range []struct {
		name   string
		header map[string]string
	}{
		{"no cookie", nil},
		{"forged cookie", map[string]string{"Cookie": CookieName + "=" + strings.Repeat("ab", 32)}},
		{"forged token", map[string]string{"Authorization": "Bearer " + strings.Repeat("cd", 32)}},
	} {
		for _, path := range []string{"/_class/api/file?exercise=pool", "/day001-hello.html", "/_lessons/api/cells?page=day001-hello"} {
			if code, _ := b.do("GET", path, nil, tc2.header); code != http.StatusUnauthorized {
				t.Errorf("%s: GET %s: %d, want 401", tc2.name, path, code)
			}
		}
	}
}

func TestCrossSiteRequestsRefused(t *testing.T) {
	tc := newTestClass(t, nil)
	ann := tc.browser()
	ann.signin(tc.invite("ann"))
	ann.origin = "https://evil.example"
	if code, _ := ann.post("/_class/api/file", map[string]any{"exercise": "pool", "text": "pwned"}); code != http.StatusForbidden {
		t.Fatalf("a save from a foreign Origin: %d, want 403", code)
	}
	if code, _ := ann.post("/_lessons/api/run", map[string]any{"page": "day001-hello", "cell": 1}); code != http.StatusForbidden {
		t.Fatalf("a run from a foreign Origin: %d, want 403", code)
	}
	ann.origin = ""
	if code, _ := ann.post("/_class/api/submit", map[string]any{"exercise": "pool"}); code != http.StatusForbidden {
		t.Fatalf("a submit without Origin: %d, want 403", code)
	}
	if code, _ := ann.do("GET", "/_class/api/file?exercise=pool", nil, map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}); code != http.StatusForbidden {
		t.Fatalf("a script of another site reading the file: %d, want 403", code)
	}
	if code := tc.browser().signin("x"); code == http.StatusSeeOther {
		t.Fatal("signed in with a made-up link")
	}
	_, body := ann.get("/_class/api/file?exercise=pool")
	if strings.Contains(body, "pwned") {
		t.Fatal("the foreign save was written")
	}
}

func TestSignInIsRateLimited(t *testing.T) {
	tc := newTestClass(t, nil)
	b := tc.browser()
	for i := range 10 {
		if code := b.signin("wrong"); code != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d", i, code)
		}
	}
	good := tc.invite("ann")
	if code := b.signin(good); code != http.StatusTooManyRequests {
		t.Fatalf("the 11th attempt at once: %d, want 429", code)
	}
	tc.clock.add(6 * time.Second)
	if code := b.signin(good); code != http.StatusSeeOther {
		t.Fatalf("after the wait: %d, want a sign-in (the link was not used up by the refused attempt)", code)
	}
}

// Sign-ins that succeed cost nothing: a whole class behind one address
// (a lab's NAT, a proxy) signs in at once.
func TestClassBehindOneAddressSignsIn(t *testing.T) {
	tc := newTestClass(t, nil)
	for i := range 30 {
		b := tc.browser()
		if code := b.signin(tc.invite("ann")); code != http.StatusSeeOther {
			t.Fatalf("sign-in %d from the same address: %d, want a sign-in", i+1, code)
		}
	}
}

func TestProxyHeaderTrustedOnlyFromTheProxy(t *testing.T) {
	tc := newTestClass(t, func(c *Config) {
		c.ProxyHeader, c.ProxyAddr, c.Instructors = "X-Remote-User", "127.0.0.1", []string{"prof"}
	})
	b := tc.browser()
	if code, body := b.do("GET", "/_class/api/me", nil, map[string]string{"X-Remote-User": "ann@uni.example"}); code != 200 || !strings.Contains(body, `"id":"ann"`) {
		t.Fatalf("from the proxy, by email: %d %s", code, body)
	}
	if code, _ := b.do("GET", "/_class/api/me", nil, map[string]string{"X-Remote-User": "mallory"}); code != http.StatusForbidden {
		t.Fatalf("someone not on the roster: %d", code)
	}
	if code, _ := b.do("GET", "/_class/instructor/state", nil, map[string]string{"X-Remote-User": "prof"}); code != 200 {
		t.Fatalf("the instructor through the proxy: %d", code)
	}
	if code, _ := b.do("POST", "/_class/signin", strings.NewReader("link=x"), nil); code != http.StatusNotFound {
		t.Fatalf("links in proxy mode: %d", code)
	}
	// lessons submit's token, got through the proxy, works without it.
	var v map[string]any
	code, body := b.do("POST", "/_class/api/token", nil, map[string]string{"X-Remote-User": "ann"})
	json.Unmarshal([]byte(body), &v)
	tok, _ := v["token"].(string)
	if code != 200 || tok == "" {
		t.Fatalf("a token through the proxy: %d %s", code, body)
	}
	if code, body := b.do("GET", "/_class/api/me", nil, map[string]string{"Authorization": "Bearer " + tok}); code != 200 || !strings.Contains(body, `"id":"ann"`) {
		t.Fatalf("the token without the proxy's header: %d %s", code, body)
	}

	other := newTestClass(t, func(c *Config) { c.ProxyHeader, c.ProxyAddr = "X-Remote-User", "10.9.8.7" })
	if code, body := other.browser().do("GET", "/_class/api/me", nil, map[string]string{"X-Remote-User": "ann"}); code != http.StatusForbidden || !strings.Contains(body, "only from the proxy") {
		t.Fatalf("the header from elsewhere: %d %s", code, body)
	}
}

func TestUnfinishedSubmissions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	os.WriteFile(path, []byte(`{"who":"ann","action":"submit","detail":"pool"}
{"who":"bob","action":"submit","detail":"pool"}
{"who":"ann","action":"submitted","detail":"pool #3 passed 10/10"}
{"who":"cy","action":"submit","detail":"pool"}
{"who":"cy","action":"submit stopped","detail":"pool: context canceled"}
{"who":"dee","action":"sub`), 0o600)
	left, err := access.Unfinished(path)
	if err != nil || len(left) != 1 || left[0] != "bob pool" {
		t.Fatalf("unfinished: %v %v", left, err)
	}
}

// A student taken off the roster is signed out by the restart that reads
// it; a proxy that sends its own Host keeps the page's Origin good.
func TestRosterAndProxyHost(t *testing.T) {
	tc := newTestClass(t, func(c *Config) { c.Hosts = []string{"gpu.uni.example"} })
	bob := tc.browser()
	bob.signin(tc.invite("bob"))
	bob.origin = "https://gpu.uni.example"
	if code, _ := bob.post("/_class/api/file", map[string]any{"exercise": "pool", "text": "x"}); code != 200 {
		t.Fatalf("a save with the public Origin through a proxy: %d", code)
	}
	if code, _ := bob.post("/_lessons/api/restart", map[string]any{"page": "day001-hello"}); code != 200 {
		t.Fatalf("a page's request with the public Origin through a proxy: %d", code)
	}
	bob.origin = "https://gpu.uni.example.evil.example"
	if code, _ := bob.post("/_class/api/file", map[string]any{"exercise": "pool", "text": "x"}); code != http.StatusForbidden {
		t.Fatalf("a look-alike Origin: %d", code)
	}
	cfg := tc.class.cfg
	cfg.Roster = cfg.Roster[:1] // ann only
	tc.class.Close()
	again, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	srv := httptest.NewServer(again)
	defer srv.Close()
	bob.base = srv.URL
	if code, body := bob.get("/_class/api/me"); code != http.StatusForbidden || !strings.Contains(body, "not on this class's roster") {
		t.Fatalf("bob after leaving the roster: %d %s", code, body)
	}
}

// No made-up cookie, bearer token or proxy header signs anyone in.
func FuzzMadeUpCredentialsRefused(f *testing.F) {
	f.Add("", "", "")
	f.Add(strings.Repeat("a", 64), "Bearer "+strings.Repeat("0", 64), "ann")
	f.Add("x;y", "Bearer", "ann@uni.example")
	clock := newClock()
	cfg := testConfig(f, &fakeTools{}, clock.now)
	cls, err := Open(cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { cls.Close() })
	if _, err := cls.Keys().Open("ann", access.RoleStudent, "cookie"); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cookie, auth, proxied string) {
		r := httptest.NewRequest("GET", "/_class/api/me", nil)
		r.AddCookie(&http.Cookie{Name: CookieName, Value: cookie})
		r.Header.Set("Authorization", auth)
		r.Header.Set("X-Remote-User", proxied)
		if p, _, code := cls.identify(r); code == 0 {
			t.Fatalf("signed in as %+v", p)
		}
	})
}
