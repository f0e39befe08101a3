package classroom

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/classroom/access"
)

func (b *browser) runCell(page string, cell int) (string, string) {
	b.t.Helper()
	data, _ := json.Marshal(map[string]any{"page": page, "session": "s1", "cell": cell})
	code, body := b.do("POST", "/_lessons/api/run", strings.NewReader(string(data)), map[string]string{"Content-Type": "application/json"})
	if code != 200 {
		b.t.Fatalf("run: %d %s", code, body)
	}
	var out, status string
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		var ev struct{ Event, Text, Status, Reason string }
		json.Unmarshal(sc.Bytes(), &ev)
		if ev.Event == "output" {
			out += ev.Text
		}
		if ev.Event == "end" {
			status = ev.Status + " " + ev.Reason
		}
	}
	return out, status
}

// A student edits, runs a cell, checks and submits: the check leaves the
// hidden checks out, the submission is graded with them, recorded, and
// answered with the feedback; a second submission keeps the first.
func TestEditRunCheckSubmit(t *testing.T) {
	tc := newTestClass(t, nil)
	ann := tc.browser()
	ann.signin(tc.invite("ann"))
	code, body := ann.get("/_class/api/file?exercise=pool")
	if code != 200 || !strings.Contains(body, "TODO: write the pool") {
		t.Fatalf("ann's copy: %d %s", code, body)
	}
	out, status := ann.runCell("day001-hello", 1)
	if out != "hello from the class\n" || strings.TrimSpace(status) != "ok" {
		t.Fatalf("the cell: %q, %q", out, status)
	}
	if code, _ := ann.post("/_class/api/file", map[string]any{"exercise": "pool", "text": "int main() { /* DONE */ }\n"}); code != 200 {
		t.Fatalf("save: %d", code)
	}
	code, v := ann.post("/_lessons/api/check", map[string]any{"exercise": "pool"})
	if code != 200 || v["passed"] != true || v["hidden"] != float64(1) || len(v["checks"].([]any)) != 1 {
		t.Fatalf("check: %d %v", code, v)
	}
	code, sub := ann.post("/_class/api/submit", map[string]any{"exercise": "pool"})
	if code != 200 || sub["status"] != "failed" || !strings.Contains(sub["feedback"].(string), "0 of 1 hidden check passed") {
		t.Fatalf("submit without the hidden part: %d %v", code, sub)
	}
	code, sub = ann.post("/_class/api/submit", map[string]any{"exercise": "pool", "text": "int main() { /* DONE HIDDEN */ }\n"})
	if code != 200 || sub["status"] != "passed" || sub["points"] != float64(10) {
		t.Fatalf("submit: %d %v", code, sub)
	}
	_, hist := ann.get("/_class/api/history?exercise=pool")
	if strings.Count(hist, `"status"`) != 2 {
		t.Fatalf("history: %s", hist)
	}
	log, _ := os.ReadFile(filepath.Join(tc.dir, PrivateDir, "audit.log"))
	for _, want := range []string{`"action":"run","detail":"day001-hello [1]"`, `"action":"check","detail":"pool"`, `"action":"save","detail":"pool"`, `"action":"submitted","detail":"pool #2 passed 10/10"`} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the audit log lacks %s:\n%s", want, log)
		}
	}
	a, ok, err := tc.class.Book().Latest("ann", "pool")
	if err != nil || !ok || a.Status != "passed" {
		t.Fatalf("gradebook: %+v %v %v", a, ok, err)
	}
	// The untouched stubs of two students build once.
	bob := tc.browser()
	bob.signin(tc.invite("bob"))
	before := tc.tools.builds
	bob.post("/_class/api/submit", map[string]any{"exercise": "pool", "text": "same stub DONE"})
	ann.post("/_class/api/submit", map[string]any{"exercise": "pool", "text": "same stub DONE"})
	if tc.tools.builds != before+1 {
		t.Errorf("two identical files built %d times", tc.tools.builds-before)
	}
}

// A second student who guesses ids, paths and tokens reaches only their
// own copy.
func TestStudentsAreIsolated(t *testing.T) {
	tc := newTestClass(t, nil)
	ann, bob := tc.browser(), tc.browser()
	ann.signin(tc.invite("ann"))
	bob.signin(tc.invite("bob"))
	ann.post("/_class/api/file", map[string]any{"exercise": "pool", "text": "ann's secret answer"})
	// ann's page carries her page server's token; bob uses it.
	_, page := ann.get("/day001-hello.html")
	i := strings.Index(page, `name="lessons-token" content="`)
	if i < 0 {
		t.Fatal("no token in ann's page")
	}
	annTok := page[i+len(`name="lessons-token" content="`):][:48]
	for _, path := range []string{
		"/_class/api/file?exercise=pool",
		"/_class/api/file?exercise=pool&student=ann",
		"/_class/api/file?exercise=../../students/ann/day001/pool",
		"/_lessons/api/cells?page=day001-hello&token=" + annTok,
		"/_class/api/history?exercise=pool",
	} {
		code, body := bob.do("GET", path, nil, map[string]string{"X-Lessons-Token": annTok})
		if strings.Contains(body, "ann's secret") {
			t.Errorf("bob read ann's file through %s (%d)", path, code)
		}
	}
	for _, path := range []string{"/_class/instructor", "/_class/instructor/state", "/_class/instructor/file?student=ann&exercise=pool", "/_class/export.csv"} {
		if code, _ := bob.get(path); code != http.StatusForbidden {
			t.Errorf("bob GET %s: %d, want 403", path, code)
		}
	}
	// bob's page runs in bob's workspace: a file ann's cell would make is
	// not there.
	if code, v := bob.post("/_lessons/api/edit", map[string]any{"page": "../ann/.work/day001-hello", "cell": 1, "text": "x"}); code == 200 {
		t.Errorf("an edit of a page named by a path: %v", v)
	}
	_, body := bob.get("/_class/api/file?exercise=pool")
	if !strings.Contains(body, "TODO: write the pool") {
		t.Errorf("bob's copy is not the course's: %s", body)
	}
	// The instructor sees both.
	prof := tc.browser()
	prof.signin(tc.invite(access.RoleInstructor))
	if _, body := prof.get("/_class/instructor/file?student=ann&exercise=pool"); !strings.Contains(body, "ann's secret") {
		t.Errorf("the instructor's view of ann's file: %s", body)
	}
	if code, body := prof.get("/_class/instructor/file?student=../ann&exercise=pool"); code == 200 {
		t.Errorf("the instructor's view of a path: %s", body)
	}
}

func TestInstructorViewAndExport(t *testing.T) {
	tc := newTestClass(t, func(c *Config) {
		c.Workers = func() []string { return []string{"job 7 (run on node1: 4 GPUs)"} }
	})
	ann := tc.browser()
	ann.signin(tc.invite("ann"))
	ann.post("/_class/api/submit", map[string]any{"exercise": "pool", "text": "DONE HIDDEN"})
	prof := tc.browser()
	prof.signin(tc.invite(access.RoleInstructor))
	if code, _ := prof.get("/"); code != http.StatusSeeOther {
		t.Fatalf("the instructor's / : %d, want a redirect to the view", code)
	}
	code, body := prof.get("/_class/instructor/state")
	var st ClassState
	json.Unmarshal([]byte(body), &st)
	if code != 200 || len(st.Students) != 2 || st.Students[0].Submitted["pool"] != "passed 10/10" || st.Students[0].What != "submit pool" {
		t.Fatalf("state: %d %s", code, body)
	}
	if len(st.Workers) != 1 || st.Workers[0] != "job 7 (run on node1: 4 GPUs)" {
		t.Errorf("the nodes' workers in the view: %q", st.Workers)
	}
	if code, v := prof.post("/_class/api/submit", map[string]any{"exercise": "pool", "text": "DONE HIDDEN"}); code == 200 {
		t.Fatalf("the instructor's submission was graded: %v", v)
	}
	code, csv := prof.get("/_class/export.csv")
	if code != 200 || !strings.Contains(csv, "ann") || !strings.Contains(csv, "10") {
		t.Fatalf("export: %d %s", code, csv)
	}
	// A later submission that fails; the instructor counts the first.
	ann.post("/_class/api/submit", map[string]any{"exercise": "pool", "text": "nothing"})
	if _, csv := prof.get("/_class/export.json"); !strings.Contains(csv, `"failed"`) {
		t.Fatalf("the latest should count: %s", csv)
	}
	if code, v := prof.post("/_class/instructor/count", map[string]any{"student": "ann", "exercise": "pool", "attempt": 99}); code == 200 {
		t.Fatalf("a submission that is not ann's: %v", v)
	}
	if code, v := prof.post("/_class/instructor/count", map[string]any{"student": "ann", "exercise": "pool", "attempt": 1}); code != 200 {
		t.Fatalf("count #1: %d %v", code, v)
	}
	if _, js := prof.get("/_class/export.json"); strings.Contains(js, `"failed"`) || !strings.Contains(js, `"passed"`) {
		t.Fatalf("the chosen submission should count: %s", js)
	}
	if _, body := prof.get("/_class/instructor/state"); !strings.Contains(body, "passed 10/10 (#1 chosen)") {
		t.Fatalf("state after the choice: %s", body)
	}
	if code, _ := ann.post("/_class/instructor/count", map[string]any{"student": "ann", "exercise": "pool", "attempt": 2}); code != http.StatusForbidden {
		t.Fatalf("a student choosing: %d", code)
	}
}

// lessons submit's token: a bearer token from the page, good for the
// class's API, not for pages, and refused once forged.
func TestSubmitToken(t *testing.T) {
	tc := newTestClass(t, nil)
	ann := tc.browser()
	ann.signin(tc.invite("ann"))
	_, v := ann.post("/_class/api/token", map[string]any{})
	tok, _ := v["token"].(string)
	if tok == "" {
		t.Fatalf("token: %v", v)
	}
	cli := tc.browser()
	cli.origin = ""
	code, body := cli.do("POST", "/_class/api/submit", strings.NewReader(`{"exercise":"pool","text":"DONE HIDDEN"}`), map[string]string{"Authorization": "Bearer " + tok})
	if code != 200 || !strings.Contains(body, `"status":"passed"`) {
		t.Fatalf("submit with the token: %d %s", code, body)
	}
	if code, _ := cli.do("GET", "/day001-hello.html", nil, map[string]string{"Authorization": "Bearer " + tok}); code != http.StatusForbidden {
		t.Fatalf("a page with the token: %d", code)
	}
	// lessons submit's client.
	res, err := Submit(context.Background(), http.DefaultClient, tc.srv.URL, tok, "pool", "DONE only")
	if err != nil || res.Status != "failed" || !strings.Contains(res.Feedback, "hidden check") {
		t.Fatalf("Submit: %+v %v", res, err)
	}
	if _, err := Submit(context.Background(), http.DefaultClient, tc.srv.URL, "forged", "pool", "x"); err == nil || !strings.Contains(err.Error(), "not valid") {
		t.Fatalf("Submit with a forged token: %v", err)
	}
}

// With the one slot taken by ann's check, bob's cell waits in the queue
// and is told its place, in its output and in the page's queue request,
// and runs when the slot is free.
func TestARunWaitsItsTurnAndSaysWhere(t *testing.T) {
	tc := newTestClass(t, func(c *Config) { c.PerDevice = 1 })
	tc.tools.hold, tc.tools.started = make(chan struct{}), make(chan string, 1)
	ann, bob := tc.browser(), tc.browser()
	ann.signin(tc.invite("ann"))
	bob.signin(tc.invite("bob"))
	checked := make(chan int)
	go func() {
		code, _ := ann.post("/_lessons/api/check", map[string]any{"exercise": "pool"})
		checked <- code
	}()
	if who := <-tc.tools.started; who != "ann" {
		t.Fatalf("%s's run started", who)
	}
	type ran struct{ out, status string }
	done := make(chan ran)
	go func() {
		out, status := bob.runCell("day001-hello", 1)
		done <- ran{out, status}
	}()
	// bob's run is in the queue once the queue says so.
	for {
		if st := tc.class.Queue().State(); st.Waiting["bob"] == 1 {
			break
		}
		runtime.Gosched()
	}
	if _, body := bob.get("/_class/api/queue"); !strings.Contains(body, `"place":1`) {
		t.Errorf("bob's place: %s", body)
	}
	close(tc.tools.hold)
	r := <-done
	if !strings.HasPrefix(r.out, "(queue: place 1 of 1") || !strings.HasSuffix(r.out, "hello from the class\n") || strings.TrimSpace(r.status) != "ok" {
		t.Errorf("bob's run: %q %q", r.out, r.status)
	}
	if code := <-checked; code != 200 {
		t.Errorf("ann's check: %d", code)
	}
}

// A student whose folder is over the class's limits, of bytes or of
// files (a cell that made files until the class's disk had no inode
// left would fail every classmate's build and run), runs no cell until
// they have emptied a workspace, and is told how.
func TestAStudentOverTheFolderLimitsRunsNoCell(t *testing.T) {
	tc := newTestClass(t, func(cfg *Config) { cfg.DiskPerStudent, cfg.FilesPerStudent = 1<<20, 200 })
	ann := tc.browser()
	ann.signin(tc.invite("ann"))
	if out, status := ann.runCell("day001-hello", 1); strings.TrimSpace(status) != "ok" {
		t.Fatalf("the first cell: %q %q", out, status)
	}
	ws := filepath.Join(tc.dir, "students", "ann", ".work", "day001-hello")
	for i := range 250 {
		os.WriteFile(filepath.Join(ws, fmt.Sprintf("f%d", i)), nil, 0o644)
	}
	out, status := ann.runCell("day001-hello", 1)
	if !strings.Contains(out+status, "files, over this class's limit of 200 a student: Restart a lesson's page") {
		t.Errorf("a cell with 250 files more: %q %q", out, status)
	}
	for i := range 250 {
		os.Remove(filepath.Join(ws, fmt.Sprintf("f%d", i)))
	}
	os.WriteFile(filepath.Join(ws, "big"), make([]byte, 2<<20), 0o644)
	out, status = ann.runCell("day001-hello", 1)
	if !strings.Contains(out+status, "your files take 2 MiB, over this class's limit of 1 MiB") {
		t.Errorf("a cell with 2 MiB more: %q %q", out, status)
	}
	os.Remove(filepath.Join(ws, "big"))
	if out, status := ann.runCell("day001-hello", 1); strings.TrimSpace(status) != "ok" {
		t.Errorf("the cell once the folder is back under: %q %q", out, status)
	}
}

// The class's Check is the page's verdict: a check that could not be made
// is shown skipped, not passed, and a failure gives the exercise's hint
// after the check's (it used to give neither).
func TestCheckShowsSkippedAndTheExercisesHint(t *testing.T) {
	tc := newTestClass(t, func(c *Config) { c.Course.Exercises[0].Hints = []string{"Think of the pool as one allocation."} })
	ann := tc.browser()
	ann.signin(tc.invite("ann"))
	if code, _ := ann.post("/_class/api/file", map[string]any{"exercise": "pool", "text": "int main() { /* SKIPPED */ }\n"}); code != 200 {
		t.Fatalf("save: %d", code)
	}
	code, v := ann.post("/_lessons/api/check", map[string]any{"exercise": "pool"})
	checks, _ := v["checks"].([]any)
	if code != 200 || len(checks) != 1 {
		t.Fatalf("check: %d %v", code, v)
	}
	if c := checks[0].(map[string]any); c["skipped"] != true || !strings.Contains(fmt.Sprint(c["got"]), "skipped:") {
		t.Errorf("a check not made is not shown skipped: %v", c)
	}
	ann.post("/_class/api/file", map[string]any{"exercise": "pool", "text": "int main() { return 1; }\n"})
	_, v = ann.post("/_lessons/api/check", map[string]any{"exercise": "pool"})
	if hints := fmt.Sprint(v["hints"]); v["passed"] != false || hints != "[print DONE Think of the pool as one allocation.]" {
		t.Errorf("a failed check's hints: %s (%v)", hints, v)
	}
}
