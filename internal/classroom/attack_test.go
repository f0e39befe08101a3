package classroom

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/classroom/access"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/grade"
)

// A student's page may post only what its notebook does: a made-up op
// under /_lessons/api/ named the audit log's action, so a student wrote
// lines in the server's name ("submitted ... passed 10/10", "read
// file"), and a forged "submit" came back after a restart as a
// submission the server stopped.
func TestPageCannotForgeAuditLines(t *testing.T) {
	tc := newTestClass(t, nil)
	ann := tc.browser()
	ann.signin(tc.invite("ann"))
	for _, op := range []string{"submitted", "submit", "signin", "read%20file", "save"} {
		if code, _ := ann.post("/_lessons/api/"+op, map[string]any{"exercise": "pool #9 passed 10/10", "page": "bob"}); code != http.StatusNotFound {
			t.Errorf("POST /_lessons/api/%s: %d, want 404", op, code)
		}
	}
	log, _ := os.ReadFile(filepath.Join(tc.dir, PrivateDir, "audit.log"))
	for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		var e access.Entry
		json.Unmarshal([]byte(line), &e)
		if e.Who == "ann" && e.Action != "signin" {
			t.Errorf("a line ann's page wrote: %s", line)
		}
	}
	left, _ := access.Unfinished(filepath.Join(tc.dir, PrivateDir, "audit.log"))
	if len(left) != 0 {
		t.Errorf("submissions the restart would report stopped: %v", left)
	}
}

// Each token asked for rewrote sessions.json with one more line, which
// every request of the class then read again: a loop of token requests
// grew it without end. A new token replaces the last (the page says so),
// and sign-ins past access.MaxBrowsers end the oldest.
func TestSessionsStayTheSizeOfTheClass(t *testing.T) {
	tc := newTestClass(t, nil)
	ann := tc.browser()
	ann.signin(tc.invite("ann"))
	var first, last string
	for i := range 50 {
		code, v := ann.post("/_class/api/token", map[string]any{})
		if code != 200 {
			t.Fatalf("token %d: %d", i, code)
		}
		if i == 0 {
			first = v["token"].(string)
		}
		last = v["token"].(string)
	}
	for i := range access.MaxBrowsers + 3 {
		tc.clock.add(time.Second)
		if _, err := tc.class.Keys().Open("ann", access.RoleStudent, "cookie"); err != nil {
			t.Fatal(i, err)
		}
	}
	data, _ := os.ReadFile(filepath.Join(tc.dir, PrivateDir, "sessions.json"))
	var m map[string]*access.Grant
	json.Unmarshal(data, &m)
	if len(m) != access.MaxBrowsers+1 {
		t.Errorf("sessions.json holds %d sessions of ann's, want %d cookies and 1 token", len(m), access.MaxBrowsers)
	}
	b := tc.browser()
	if code, _ := b.do("GET", "/_class/api/me", nil, map[string]string{"Authorization": "Bearer " + first}); code != http.StatusUnauthorized {
		t.Errorf("the first token, replaced: %d, want 401", code)
	}
	if code, _ := b.do("GET", "/_class/api/me", nil, map[string]string{"Authorization": "Bearer " + last}); code != 200 {
		t.Errorf("the last token: %d", code)
	}
	// The browser that signed in first was signed out by the ninth.
	if code, _ := ann.get("/_class/api/me"); code != http.StatusUnauthorized {
		t.Errorf("the oldest browser after %d more sign-ins: %d, want 401", access.MaxBrowsers+3, code)
	}
}

// A class folder (or a course) where every run may read (/opt is in
// sandbox.SystemRead) showed each student's workspace and copies to the
// others' runs, and to a server not run as root the gradebook and audit
// log: seen with the real binary, a class in /opt/ca-class and bob's cell
// cat-ing ann's files.
func TestClassWhereRunsReadIsRefused(t *testing.T) {
	readable := t.TempDir()
	_, err := Open(func() Config {
		cfg := testConfig(t, &fakeTools{}, newClock().now)
		cfg.Dir = filepath.Join(readable, "class")
		cfg.RunsRead = []string{"/no/such/folder", readable}
		return cfg
	}())
	if err == nil || !strings.Contains(err.Error(), "every student's run may read") {
		t.Fatalf("a class folder runs may read: %v", err)
	}
	cfg := testConfig(t, &fakeTools{}, newClock().now)
	cfg.RunsRead = []string{cfg.Course.Root}
	link := filepath.Join(t.TempDir(), "course")
	os.Symlink(cfg.Course.Root, link)
	cfg.Course.Root = link // as the links lead
	if _, err := Open(cfg); err == nil || !strings.Contains(err.Error(), "course") {
		t.Fatalf("a course runs may read, through a link: %v", err)
	}
}

// heldBuilds is a toolchain whose builds wait until released, telling
// whose build started.
type heldBuilds struct {
	fakeTools
	release chan struct{}
	start   chan string
}

func (h *heldBuilds) Build(ctx context.Context, t *grade.Task, slot int) *grade.Built {
	h.start <- t.Student
	<-h.release
	return h.fakeTools.Build(ctx, t, slot)
}

// A student who checks every exercise at once took every build slot, and
// the class's builds waited behind theirs: one build of a student's runs
// at a time.
func TestOneStudentsBuildsLeaveSlotsToOthers(t *testing.T) {
	tools := &heldBuilds{release: make(chan struct{}), start: make(chan string, 16)}
	files := map[string]string{}
	for k, v := range testCourse {
		files[k] = v
	}
	for _, x := range []string{"pool2", "pool3"} {
		files["course.toml"] += "\n[[exercise]]\nid = \"" + x + "\"\nlesson = \"day001\"\nstudent = \"exercises/day001/" + x + ".cu\"\nsolution = \"solutions/day001/" + x + ".cu\"\n"
		files["exercises/day001/"+x+".cu"] = "// " + x + "\n"
		files["exercises/day001/"+x+".toml"] = "points = 1\n\n[[check]]\nname = \"ok\"\ncontains = \"DONE\"\n"
		files["solutions/day001/"+x+".cu"] = "DONE\n"
	}
	tc := newTestClass(t, func(c *Config) {
		root := t.TempDir()
		writeTree(t, root, files)
		var err error
		if c.Course, err = course.Load(root); err != nil {
			t.Fatal(err)
		}
		c.Toolchain, c.Jobs = tools, 2
	})
	ann, bob := tc.browser(), tc.browser()
	ann.signin(tc.invite("ann"))
	bob.signin(tc.invite("bob"))
	// bob's own file: an untouched stub would share ann's build.
	bob.post("/_class/api/file", map[string]any{"exercise": "pool", "text": "bob's pool\n"})
	var wg sync.WaitGroup
	check := func(b *browser, x string) {
		wg.Add(1)
		go func() { defer wg.Done(); b.post("/_lessons/api/check", map[string]any{"exercise": x}) }()
	}
	check(ann, "pool")
	if who := <-tools.start; who != "ann" {
		t.Fatalf("first build: %s", who)
	}
	check(ann, "pool2")
	check(ann, "pool3")
	check(bob, "pool")
	second := <-tools.start
	close(tools.release)
	wg.Wait()
	if second != "bob" {
		t.Fatalf("the second build slot went to %s while bob's build waited", second)
	}
}

// The Origin's host was compared without its port: a page on another
// port of the class's host (a student's web server on the GPU machine:
// same-site, so the proxy's sign-on cookie goes with its form posts)
// passed for this server.
func TestOriginOnAnotherPortIsRefused(t *testing.T) {
	tc := newTestClass(t, func(c *Config) { c.Hosts = []string{"gpu.uni.example", "lab.uni.example:8443"} })
	bob := tc.browser()
	bob.signin(tc.invite("bob"))
	for origin, want := range map[string]int{
		"https://gpu.uni.example":      200,
		"https://lab.uni.example:8443": 200,
		"http://gpu.uni.example:8080":  http.StatusForbidden,
		"https://gpu.uni.example:8443": http.StatusForbidden,
		"https://lab.uni.example":      http.StatusForbidden,
		"ftp://gpu.uni.example":        http.StatusForbidden,
	} {
		bob.origin = origin
		if code, _ := bob.post("/_class/api/file", map[string]any{"exercise": "pool", "text": "x"}); code != want {
			t.Errorf("a save with Origin %s: %d, want %d", origin, code, want)
		}
	}
}

// A cell could fill the class's disk: the sandbox caps each file's size,
// not how many a run writes, nor how many runs. Past the class's limit a
// student's cells are refused, saying how to free the space.
func TestCellsStopAtTheDiskLimit(t *testing.T) {
	tc := newTestClass(t, func(c *Config) { c.DiskPerStudent = 1 << 20 })
	ann, bob := tc.browser(), tc.browser()
	ann.signin(tc.invite("ann"))
	bob.signin(tc.invite("bob"))
	if out, status := ann.runCell("day001-hello", 1); strings.TrimSpace(status) != "ok" {
		t.Fatalf("a first run: %q %q", out, status)
	}
	// What a cell of ann's wrote into her workspace.
	ws := filepath.Join(tc.dir, "students", "ann", ".work", "day001-hello")
	for i := range 3 {
		if err := os.WriteFile(filepath.Join(ws, fmt.Sprintf("fill%d", i)), make([]byte, 512<<10), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, status := ann.runCell("day001-hello", 1); !strings.Contains(status, "over this class's limit of 1 MiB") {
		t.Fatalf("a run over the limit: %q", status)
	}
	if _, status := bob.runCell("day001-hello", 1); strings.TrimSpace(status) != "ok" {
		t.Fatalf("bob's run beside ann's full folder: %q", status)
	}
	if code, _ := ann.post("/_lessons/api/restart", map[string]any{"page": "day001-hello"}); code != 200 {
		t.Fatalf("restart: %d", code)
	}
	if _, status := ann.runCell("day001-hello", 1); strings.TrimSpace(status) != "ok" {
		t.Fatalf("a run after Restart emptied the workspace: %q", status)
	}
}

// A cell that makes its workspace's edits folder a link (to another
// student's workspace) is refused every write through it; Restart kept
// the link, so the student's page could edit no file cell again.
func TestRestartDropsALinkedEditsFolder(t *testing.T) {
	files := map[string]string{}
	for k, v := range testCourse {
		files[k] = v
	}
	files["lessons/day001-hello.md"] = "# Day 1: Hello\n\n```sh file=x.sh\necho hello\n```\n\n```sh run\nsh x.sh\n```\n"
	tc := newTestClass(t, func(c *Config) {
		root := t.TempDir()
		writeTree(t, root, files)
		var err error
		if c.Course, err = course.Load(root); err != nil {
			t.Fatal(err)
		}
	})
	ann := tc.browser()
	ann.signin(tc.invite("ann"))
	ann.runCell("day001-hello", 2)
	bobs := filepath.Join(tc.dir, "students", "bob", ".work", "day001-hello")
	os.MkdirAll(bobs, 0o755)
	ws := filepath.Join(tc.dir, "students", "ann", ".work", "day001-hello")
	os.RemoveAll(filepath.Join(ws, ".lessons-edits"))
	if err := os.Symlink(bobs, filepath.Join(ws, ".lessons-edits")); err != nil {
		t.Fatal(err)
	}
	edit := func() int {
		code, _ := ann.post("/_lessons/api/edit", map[string]any{"page": "day001-hello", "cell": 1, "text": "echo mine\n"})
		return code
	}
	if edit() == 200 {
		t.Fatal("an edit through a link to bob's workspace was written")
	}
	if entries, _ := os.ReadDir(bobs); len(entries) != 0 {
		t.Fatalf("bob's workspace: %v", entries)
	}
	if code, _ := ann.post("/_lessons/api/restart", map[string]any{"page": "day001-hello"}); code != 200 {
		t.Fatalf("restart: %d", code)
	}
	if code := edit(); code != 200 {
		t.Fatalf("an edit after Restart: %d", code)
	}
}

// A proxy that adds its header to the one the browser sent (rather than
// replacing it) passes two: the first, which Header.Get reads, was the
// browser's, so anyone could name themselves the instructor.
func TestProxyHeaderSentTwiceIsRefused(t *testing.T) {
	tc := newTestClass(t, func(c *Config) {
		c.ProxyHeader, c.ProxyAddr, c.Instructors = "X-Remote-User", "127.0.0.1", []string{"prof"}
	})
	for _, values := range [][]string{{"prof", "ann"}, {"prof, ann"}} {
		req, _ := http.NewRequest("GET", tc.srv.URL+"/_class/instructor/state", nil)
		req.Header["X-Remote-User"] = values
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("the header as %q: %d, want 400", values, res.StatusCode)
		}
	}
	// Which submission counts is changed by a POST only.
	b := tc.browser()
	if code, _ := b.do("GET", "/_class/instructor/count", nil, map[string]string{"X-Remote-User": "prof"}); code != http.StatusMethodNotAllowed {
		t.Errorf("a GET of instructor/count: %d, want 405", code)
	}
}

// A student who asks for the instructor's state by its URL is refused,
// and learns nothing of it: not the classmates, not the cluster's nodes
// (which the view names since it lists the pilots' workers).
func TestStudentCannotReadTheInstructorsState(t *testing.T) {
	tc := newTestClass(t, func(c *Config) {
		c.Workers = func() []string { return []string{"job 7 (run on gpu-node-1: 4 GPUs)"} }
	})
	ann := tc.browser()
	ann.signin(tc.invite("ann"))
	for _, path := range []string{"/_class/instructor/state", "/_class/instructor", "/_class/export.json"} {
		code, body := ann.get(path)
		if code != http.StatusForbidden || strings.Contains(body, "gpu-node-1") || strings.Contains(body, "bob") {
			t.Errorf("ann's GET %s: %d %q", path, code, body)
		}
	}
}
