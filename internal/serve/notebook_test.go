package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/render"
	"github.com/cudalessons/lessons/internal/runner"
)

// fakeNVCC "builds" a shell script from the source's "// fake: " lines,
// and fails like nvcc, at its line, on a line that says ERROR.
const fakeNVCC = `#!/bin/sh
out=""; src=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift ;;
    *.cu) src="$1" ;;
  esac
  shift
done
line=$(grep -n ERROR "$src" | head -1 | cut -d: -f1)
if [ -n "$line" ]; then
  echo "$src($line): error: expected a \";\"" >&2; exit 2
fi
{ echo '#!/bin/sh'; sed -n 's|^// fake: ||p' "$src"; } > "$out"
chmod +x "$out"
`

// dayOne has a program in a file cell, the cell that builds and runs it,
// a cell that prints, waits for $GO and prints again, and a long cell that
// notes its process id.
const dayOne = "# Day 1: A\n\n" +
	"```cuda file=hello.cu\n// fake: echo hello from the GPU\n// fake: echo second line\nint main() {}\n```\n\n" +
	"```sh run\nnvcc -o hello hello.cu && ./hello\n```\n\n" +
	"```sh run\necho first; while [ ! -e go ]; do sleep 0.02; done; echo second\n```\n\n" +
	"```sh run\necho $$ > long.pid; echo long; sleep 30\n```\n"

// course is a served course for tests: lessons by page, workspaces in a
// folder of the test's.
type course struct {
	t       testing.TB
	root    string
	lessons map[string]string // page -> markdown
	srv     *Server
	http    *httptest.Server
}

func newCourse(t testing.TB, lessons map[string]string) *course {
	t.Helper()
	c := &course{t: t, root: t.TempDir(), lessons: lessons}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "nvcc"), []byte(fakeNVCC), 0o755); err != nil {
		t.Fatal(err)
	}
	c.srv = newServer(c.build)
	c.srv.SetNotebook(&Notebook{
		Lesson: c.lesson,
		Env: func(ws string) (notebook.Env, error) {
			return notebook.Env{Runner: runner.Exec{}, Wrapper: bin}, nil
		},
		Timeout: time.Minute,
	})
	c.http = httptest.NewServer(c.srv)
	t.Cleanup(c.http.Close)
	return c
}

func (c *course) lesson(page string) (*lesson.Lesson, string, error) {
	md, ok := c.lessons[page]
	if !ok {
		return nil, "", fmt.Errorf("%s is not a lesson of this course", page)
	}
	path := filepath.Join(c.root, "lessons", page+".md")
	if data, err := os.ReadFile(path); err == nil {
		md = string(data)
	}
	l, err := lesson.Parse(path, []byte(md))
	return l, c.workspace(page), err
}

func (c *course) workspace(page string) string { return filepath.Join(c.root, "work", page) }

func (c *course) build() (map[string][]byte, error) {
	site := map[string][]byte{}
	for page := range c.lessons {
		l, _, err := c.lesson(page)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		b.WriteString("<!doctype html><html><head><meta charset=\"utf-8\"><title>" + page + "</title></head><body><main>")
		if err := render.PageHTML(&b, l); err != nil {
			return nil, err
		}
		b.WriteString("</main></body></html>")
		site[page+".html"] = b.Bytes()
	}
	return site, nil
}

// post sends a request as the page does: the token and the Origin.
func (c *course) post(op string, body map[string]any) *http.Response {
	c.t.Helper()
	return c.postWith(context.Background(), op, body, c.srv.Token(), c.http.URL)
}

func (c *course) postWith(ctx context.Context, op string, body map[string]any, token, origin string) *http.Response {
	c.t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx, "POST", c.http.URL+apiPrefix+op, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set(TokenHeader, token)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	return res
}

// events reads a run's stream to its end.
func events(t testing.TB, res *http.Response) ([]event, string) {
	t.Helper()
	defer res.Body.Close()
	if res.StatusCode != 200 {
		body, _ := io.ReadAll(res.Body)
		t.Fatalf("run: %s: %s", res.Status, body)
	}
	var evs []event
	var out strings.Builder
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("a line of the stream is not an event: %q", sc.Text())
		}
		evs = append(evs, e)
		out.WriteString(e.Text)
	}
	return evs, out.String()
}

func last(evs []event) event {
	if len(evs) == 0 {
		return event{}
	}
	return evs[len(evs)-1]
}

func TestRunBuildsAndRunsACell(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	evs, out := events(t, c.post("run", map[string]any{"page": "day001-a", "session": "p1", "cell": 2}))
	if evs[0].Event != "start" || evs[0].Cell != 2 {
		t.Errorf("first event %+v, want start of cell 2", evs[0])
	}
	end := last(evs)
	if end.Event != "end" || end.Status != "ok" || end.Cell != 2 {
		t.Fatalf("end %+v; output %q", end, out)
	}
	if out != "hello from the GPU\nsecond line\n" {
		t.Errorf("output %q", out)
	}
}

// The output of a cell comes while it runs: the first line arrives before
// the cell is let go on to print the second.
func TestOutputStreamsWhileTheCellRuns(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	res := c.post("run", map[string]any{"page": "day001-a", "session": "p1", "cell": 3})
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	var seen strings.Builder
	for !strings.Contains(seen.String(), "first") && sc.Scan() {
		var e event
		json.Unmarshal(sc.Bytes(), &e)
		if e.Event == "end" {
			t.Fatalf("the cell ended before it was let go: %+v", e)
		}
		seen.WriteString(e.Text)
	}
	if !strings.Contains(seen.String(), "first") {
		t.Fatalf("no first line: %q", seen.String())
	}
	os.WriteFile(filepath.Join(c.workspace("day001-a"), "go"), nil, 0o644)
	var end event
	for sc.Scan() {
		var e event
		json.Unmarshal(sc.Bytes(), &e)
		seen.WriteString(e.Text)
		end = e
	}
	if end.Status != "ok" || seen.String() != "first\nsecond\n" {
		t.Errorf("end %+v, output %q", end, seen.String())
	}
}

func TestEditGoesToTheWorkspaceAndMarksTheCompileError(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	broken := "// fake: echo hello\nint main() {\n  ERROR here\n}\n"
	res := c.post("edit", map[string]any{"page": "day001-a", "session": "p1", "cell": 1, "text": broken})
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("edit: %s %s", res.Status, b)
	}
	res.Body.Close()
	if data, _ := os.ReadFile(filepath.Join(c.workspace("day001-a"), "hello.cu")); string(data) != broken {
		t.Errorf("the workspace's hello.cu is %q", data)
	}
	evs, out := events(t, c.post("run", map[string]any{"page": "day001-a", "session": "p1", "cell": 2}))
	end := last(evs)
	if end.Status != "failed" || end.ErrorCell != 1 || end.ErrorLine != 3 || !strings.Contains(end.Reason, "compile error at hello.cu:3") {
		t.Errorf("end %+v; output %q", end, out)
	}
	// The edit stays (a reload sees it) ...
	cells := c.cells("day001-a")
	if !cells[0].Edited || cells[0].Text != broken {
		t.Errorf("cells after the edit: %+v", cells[0])
	}
	// ... until Reset cell brings the lesson's code back.
	res = c.post("reset", map[string]any{"page": "day001-a", "cell": 1})
	res.Body.Close()
	if cells := c.cells("day001-a"); cells[0].Edited || !strings.Contains(cells[0].Text, "hello from the GPU") {
		t.Errorf("cells after Reset: %+v", cells[0])
	}
	if evs, out := events(t, c.post("run", map[string]any{"page": "day001-a", "session": "p1", "cell": 2})); last(evs).Status != "ok" {
		t.Errorf("after Reset: %+v %q", last(evs), out)
	}
	// A command cell is not edited.
	res = c.post("edit", map[string]any{"page": "day001-a", "cell": 2, "text": "rm -rf /"})
	if res.StatusCode != 400 {
		t.Errorf("editing a command cell: %s", res.Status)
	}
	res.Body.Close()
}

func (c *course) cells(page string) []cellState {
	c.t.Helper()
	req, _ := http.NewRequest("GET", c.http.URL+apiPrefix+"cells?page="+page, nil)
	req.Header.Set(TokenHeader, c.srv.Token())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	var cells []cellState
	if err := json.NewDecoder(res.Body).Decode(&cells); err != nil {
		c.t.Fatal(err)
	}
	return cells
}

// startLong runs the long cell for session and returns its stream, once
// its process is up, and the process's id.
func (c *course) startLong(ctx context.Context, session string) (*http.Response, int) {
	c.t.Helper()
	pidFile := filepath.Join(c.workspace("day001-a"), "long.pid")
	os.Remove(pidFile)
	res := c.postWith(ctx, "run", map[string]any{"page": "day001-a", "session": session, "cell": 4}, c.srv.Token(), c.http.URL)
	pid := 0
	started := eventually(func() bool {
		data, err := os.ReadFile(pidFile)
		if err != nil || len(data) == 0 || data[len(data)-1] != '\n' {
			return false
		}
		pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		return true
	})
	if !started {
		c.t.Fatal("the long cell did not start")
	}
	return res, pid
}

// eventually is whether cond comes true within 30 s, looked at every
// 10 ms: long enough for a loaded machine, so that only a condition that
// never comes true fails a test.
func eventually(cond func() bool) bool {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

func gone(pid int) bool { return eventually(func() bool { return syscall.Kill(pid, 0) != nil }) }

func TestStopEndsTheCellsProcess(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	res, pid := c.startLong(context.Background(), "p1")
	// Another page's Stop is not this page's.
	other := c.post("stop", map[string]any{"page": "day001-a", "session": "p2"})
	other.Body.Close()
	if syscall.Kill(pid, 0) != nil {
		t.Fatal("another page's Stop stopped this page's cell")
	}
	stop := c.post("stop", map[string]any{"page": "day001-a", "session": "p1"})
	stop.Body.Close()
	evs, _ := events(t, res)
	if last(evs).Status != "stopped" {
		t.Errorf("end %+v, want stopped", last(evs))
	}
	if !gone(pid) {
		t.Errorf("process %d still runs after Stop", pid)
	}
}

func TestClosingThePageEndsTheCellsProcess(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	ctx, cancel := context.WithCancel(context.Background())
	res, pid := c.startLong(ctx, "p1")
	cancel()
	res.Body.Close()
	if !gone(pid) {
		t.Errorf("process %d still runs after its page went away", pid)
	}
	eventually(func() bool { return c.srv.nb.running() == 0 })
	if n := c.srv.nb.running(); n != 0 {
		t.Errorf("%d runs left", n)
	}
}

func TestRunOnARunningCellRestartsIt(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	first, pid := c.startLong(context.Background(), "p1")
	second, pid2 := c.startLong(context.Background(), "p1")
	evs, _ := events(t, first)
	if last(evs).Status != "stopped" {
		t.Errorf("the first run ended %+v, want stopped", last(evs))
	}
	if pid == pid2 || !gone(pid) {
		t.Errorf("the first run's process %d was not stopped (second %d)", pid, pid2)
	}
	stop := c.post("stop", map[string]any{"session": "p1"})
	stop.Body.Close()
	events(t, second)
}

func TestRestartGivesAFreshWorkspaceAndKeepsEdits(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	events(t, c.post("run", map[string]any{"page": "day001-a", "session": "p1", "cell": 2}))
	ws := c.workspace("day001-a")
	if _, err := os.Stat(filepath.Join(ws, "hello")); err != nil {
		t.Fatal(err)
	}
	res := c.post("edit", map[string]any{"page": "day001-a", "cell": 1, "text": "// fake: echo edited\n"})
	res.Body.Close()
	res = c.post("restart", map[string]any{"page": "day001-a", "session": "p1"})
	res.Body.Close()
	if _, err := os.Stat(filepath.Join(ws, "hello")); err == nil {
		t.Error("the program is still in the workspace after Restart")
	}
	_, out := events(t, c.post("run", map[string]any{"page": "day001-a", "session": "p1", "cell": 2}))
	if out != "edited\n" {
		t.Errorf("after Restart the edit is lost: %q", out)
	}
}

// Ten pages at once, each on its own lesson: each gets all of its output
// and none of another's, while one more page has stopped reading a cell
// that prints a lot.
func TestTenPagesAndOneThatStopsReading(t *testing.T) {
	lessons := map[string]string{
		"day099-flood": "# Day 99: Flood\n\n```sh run\nyes flood | head -c 4000000\n```\n",
	}
	for i := range 10 {
		lessons[fmt.Sprintf("day%03d-p", i+1)] = fmt.Sprintf("# Day %d: P\n\n```sh run\nfor i in $(seq 1 300); do echo page%d line $i; done\n```\n", i+1, i+1)
	}
	c := newCourse(t, lessons)
	stuck := c.post("run", map[string]any{"page": "day099-flood", "session": "stuck", "cell": 1})
	defer stuck.Body.Close() // never read
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			page := fmt.Sprintf("day%03d-p", i+1)
			evs, out := events(t, c.post("run", map[string]any{"page": page, "session": page, "cell": 1}))
			var want strings.Builder
			for k := 1; k <= 300; k++ {
				fmt.Fprintf(&want, "page%d line %d\n", i+1, k)
			}
			if last(evs).Status != "ok" || out != want.String() {
				t.Errorf("%s: end %+v, %d bytes of output, want %d", page, last(evs), len(out), want.Len())
			}
		}()
	}
	wg.Wait()
}

// Two pages of one lesson share its workspace, as lessons run does: their
// cells take turns, the second told that it waits, and both run.
func TestPagesOfOneLessonTakeTurns(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	first := c.post("run", map[string]any{"page": "day001-a", "session": "p1", "cell": 3})
	sc := bufio.NewScanner(first.Body)
	for sc.Scan() && !strings.Contains(sc.Text(), "first") {
	}
	// The second page's first event says that it waits; it runs only
	// once the first cell, still running, is let go.
	second := c.post("run", map[string]any{"page": "day001-a", "session": "p2", "cell": 2})
	defer second.Body.Close()
	sc2 := bufio.NewScanner(second.Body)
	next := func() (ev event, ok bool) {
		if !sc2.Scan() {
			return ev, false
		}
		if err := json.Unmarshal(sc2.Bytes(), &ev); err != nil {
			t.Fatalf("a line of the stream is not an event: %q", sc2.Text())
		}
		return ev, true
	}
	if ev, _ := next(); ev.Event != "waiting" {
		t.Fatalf("the second page's first event: %+v; want waiting", ev)
	}
	os.WriteFile(filepath.Join(c.workspace("day001-a"), "go"), nil, 0o644)
	for sc.Scan() {
	}
	first.Body.Close()
	var evs []event
	for ev, ok := next(); ok; ev, ok = next() {
		evs = append(evs, ev)
	}
	if len(evs) == 0 || evs[0].Event != "start" || last(evs).Status != "ok" {
		t.Errorf("the second page's events after waiting: %+v", evs)
	}
}

// BenchmarkRunToFirstLine is what the page's protocol adds to a cell's
// first line, without a GPU: a cell that prints at once, from the request
// sent until its first output line arrives, against the same cell through
// notebook.Run in the process (the page's server does that and streams).
func BenchmarkRunToFirstLine(b *testing.B) {
	c := newCourse(b, map[string]string{"day001-a": "# Day 1: A\n\n```sh run\necho first line; sleep 0.05\n```\n"})
	b.Run("page", func(b *testing.B) {
		for b.Loop() {
			res := c.post("run", map[string]any{"page": "day001-a", "session": "b", "cell": 1})
			sc := bufio.NewScanner(res.Body)
			for sc.Scan() && !strings.Contains(sc.Text(), `first line\n`) {
			}
			b.StopTimer()
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			b.StartTimer()
		}
	})
	b.Run("notebook", func(b *testing.B) {
		l, ws, _ := c.lesson("day001-a")
		for b.Loop() {
			w := &firstLine{seen: make(chan struct{})}
			go notebook.Run(context.Background(), l, notebook.Env{Runner: runner.Exec{}}, notebook.Options{Workspace: ws, Cell: 1, Plain: true}, w)
			<-w.seen
			b.StopTimer()
			time.Sleep(60 * time.Millisecond)
			b.StartTimer()
		}
	})
}

type firstLine struct {
	once sync.Once
	seen chan struct{}
}

func (f *firstLine) Write(p []byte) (int, error) {
	if bytes.IndexByte(p, '\n') >= 0 {
		f.once.Do(func() { close(f.seen) })
	}
	return len(p), nil
}

// A cell or lesson that is not there is a clear error, not a stream.
func TestRunOfNoSuchCell(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	for body, want := range map[string]string{
		`{"page":"day001-a","cell":99}`:  "day001-a has no runnable cell [99]",
		`{"page":"day009-x","cell":1}`:   "day009-x is not a lesson of this course",
		`{"page":"day001-a","cell":"x"}`: "the request is not JSON",
	} {
		var m map[string]any
		json.Unmarshal([]byte(body), &m)
		res := c.postWith(context.Background(), "run", m, c.srv.Token(), c.http.URL)
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 400 || !strings.Contains(string(data), want) {
			t.Errorf("run %s: %s %s, want 400 %q", body, res.Status, data, want)
		}
	}
}

// An end event says its time even when it is 0 ms: the page showed
// "✓ ok · NaN s" for a file cell written in under a millisecond.
func TestEndEventAlwaysHasItsTime(t *testing.T) {
	b, err := json.Marshal(&event{Event: "end", Cell: 1, Status: "ok"})
	if err != nil || !strings.Contains(string(b), `"ms":0`) {
		t.Errorf("end event = %s, %v; want \"ms\":0 in it", b, err)
	}
}

// TestHelperSendsATrace is not a test: run by a cell's program (with
// TIMELINE_HELPER=1), it sends a record with a trace over the channel, as
// the statistics library preloaded into a traced cell does.
func TestHelperSendsATrace(t *testing.T) {
	if os.Getenv("TIMELINE_HELPER") != "1" {
		t.Skip("run by a cell of TestRunDrawsATimelineWhenAsked")
	}
	key, _ := hex.DecodeString(os.Getenv("LESSONS_STATS_KEY"))
	if len(key) == 0 {
		fmt.Println("ran without the library")
		os.Exit(0)
	}
	trace, err := os.ReadFile(os.Getenv("TIMELINE_TRACE"))
	if err != nil || len(key) != checker.KeySize {
		fmt.Fprintln(os.Stderr, "helper: no trace or no channel:", err)
		os.Exit(2)
	}
	g := &checker.Guard{RuntimeCopies: 1}
	start, _ := checker.EncodeFrame(key, 0, checker.FrameStart, &checker.Stats{}, g)
	tr, _ := checker.EncodeTraceFrame(key, 1, trace, g)
	end, _ := checker.EncodeFrame(key, 2, checker.FrameEnd, &checker.Stats{Exited: 1}, g)
	os.NewFile(3, "stats").Write(append(append(start, tr...), end...))
	os.Exit(0)
}

// With the page's Timelines toggle on, a cell's run ends with the
// timeline of the CUDA program it ran, as a picture per theme (the
// library's trace: here the one recorded over the stand-in runtime);
// without it, or where the server cannot trace, there is none, and the
// page is told why.
func TestRunDrawsATimelineWhenAsked(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	trace, _ := filepath.Abs("../timeline/testdata/recorded/stub-race.trace")
	t.Setenv("TIMELINE_TRACE", trace)
	c := newCourse(t, map[string]string{"day001-a": "# Day 1: A\n\n" +
		"```cuda file=p.cu\n// fake: TIMELINE_HELPER=1 " + exe + " -test.run=TestHelperSendsATrace\nint main() {}\n```\n\n" +
		"```sh run\nnvcc -o p p.cu && ./p\n```\n"})
	// The C library stands in for the statistics library: preloading it
	// changes nothing and makes the loader say nothing.
	lib := "libc.so.6"
	c.srv.nb.Library = func(context.Context) (string, error) { return lib, nil }

	// The page learns with its cells that it may show the toggle.
	canTrace := func() string {
		req, _ := http.NewRequest("GET", c.http.URL+apiPrefix+"cells?page=day001-a", nil)
		req.Header.Set(TokenHeader, c.srv.Token())
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.Header.Get("X-Lessons-Timelines")
	}
	if got := canTrace(); got != "1" {
		t.Errorf("a server that traces says %q", got)
	}

	evs, out := events(t, c.post("run", map[string]any{"page": "day001-a", "session": "p1", "cell": 2, "timeline": true}))
	var pics *Timeline
	for _, e := range evs {
		if e.Event == "timeline" {
			pics = e.Timeline
			if !strings.Contains(e.Text, "./p") {
				t.Errorf("the timeline does not name its command: %q", e.Text)
			}
		}
	}
	if last(evs).Status != "ok" || pics == nil {
		t.Fatalf("no timeline: %+v\n%s", evs, out)
	}
	if !strings.HasPrefix(pics.Light, "<svg") || !strings.HasPrefix(pics.Dark, "<svg") || !strings.Contains(pics.Summary, "2 streams") || !strings.Contains(pics.Light, "tl-reserved") {
		t.Errorf("pictures: %q", pics.Summary)
	}

	for _, tc := range []struct {
		body map[string]any
		lib  bool
		want string
	}{
		{map[string]any{"page": "day001-a", "session": "p1", "cell": 2}, true, ""},
		{map[string]any{"page": "day001-a", "session": "p1", "cell": 2, "timeline": true}, false, "no timeline: this server does not trace cells"},
	} {
		if !tc.lib {
			c.srv.nb.Library = nil
			if got := canTrace(); got != "" {
				t.Errorf("a server that cannot trace says %q", got)
			}
		}
		evs, _ := events(t, c.post("run", tc.body))
		got := ""
		for _, e := range evs {
			if e.Event == "timeline" {
				if e.Timeline != nil {
					t.Errorf("%v: a picture", tc.body)
				}
				got = e.Text
			}
		}
		if got != tc.want {
			t.Errorf("%v: %q, want %q", tc.body, got, tc.want)
		}
	}
}
