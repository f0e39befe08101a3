package serve

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cudalessons/lessons/internal/browsertest"
)

// page drives one tab of a headless Chromium.
type page struct {
	t   *testing.T
	ctx context.Context
}

func (p *page) do(what string, a chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, a); err != nil {
		p.t.Fatalf("%s: %v", what, err)
	}
}

// wait waits for a JavaScript expression to be true. It asks again
// (rather than polling in the page) so that a page that reloads meanwhile
// is asked again too.
func (p *page) wait(what, expr string) {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		var ok bool
		if ok, err = chromedp.Run(p.ctx, chromedp.Evaluate[bool]("!!("+expr+")")); err == nil && ok {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.t.Fatalf("waiting for %s (%s): %v\npage: %s", what, expr, err, p.eval("document.body?.innerText || \"\""))
}

func (p *page) eval(expr string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		p.t.Fatalf("%s: %v", expr, err)
	}
	return s
}

func (p *page) click(sel string) { p.t.Helper(); p.do("click "+sel, chromedp.Click(chromedp.CSS(sel))) }

// cellJS is JavaScript for part of cell n: its output, status or code.
func out(n int) string {
	return fmt.Sprintf(`((document.querySelector('.cell[data-cell="%d"] .cell-output')||{}).textContent||"")`, n)
}
func status(n int) string {
	return fmt.Sprintf(`((document.querySelector('.cell[data-cell="%d"] .cell-status')||{}).textContent||"")`, n)
}

// The notebook as a student uses it: run a cell and watch its output come,
// edit a file cell to a compile error and see the line marked, reload and
// find the edit, Reset it, Run all and Stop the long cell, Check an
// exercise, save it and see the verdict arrive, and reload on a lesson save.
func TestNotebookInTheBrowser(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	exercise := filepath.Join(c.root, "pipe.cu")
	os.WriteFile(exercise, []byte("// TODO\n"), 0o644)
	c.srv.SetChecker(&fakeChecker{file: exercise})
	wctx, stop := context.WithCancel(context.Background())
	defer stop()
	go c.srv.WatchExercises(wctx, true, 50*time.Millisecond, t.Logf)

	p := &page{t: t, ctx: browsertest.New(t, browsertest.Options{Timeout: 2 * time.Minute})}
	p.do("open the lesson", chromedp.Navigate(withToken(c.http.URL+"/day001-a.html")))
	p.wait("Run under the cells", `document.querySelectorAll('.cell[data-cell] button.run').length === 4`)

	// Run: the first line shows while the cell still runs.
	p.click(`.cell[data-cell="3"] button.run`)
	p.wait("the first line, the cell running", out(3)+`.includes("first") && `+status(3)+`.includes("running")`)
	os.WriteFile(filepath.Join(c.workspace("day001-a"), "go"), nil, 0o644)
	p.wait("the second line and ok", out(3)+` === "first\nsecond\n" && `+status(3)+`.startsWith("✓ ok")`)

	// An edit that does not compile: the line is marked in the code.
	p.click(`.cell[data-cell="1"] button.edit`)
	p.wait("the editor", `!!document.querySelector('.cell[data-cell="1"] textarea')`)
	p.eval(`(() => { const ta = document.querySelector('.cell[data-cell="1"] textarea');
		ta.value = "// fake: echo edited\nint main() {\n  ERROR here\n}"; ta.dispatchEvent(new Event("input")); return "" })()`)
	p.click(`.cell[data-cell="2"] button.run`)
	p.wait("the compile error's line marked", `(document.querySelector('.cell[data-cell="1"] .line.error-line')||{}).textContent === "  ERROR here\n"`)
	if s := p.eval(status(2)); !strings.Contains(s, "compile error at hello.cu:3") {
		t.Errorf("cell 2's status: %q", s)
	}
	if data, _ := os.ReadFile(filepath.Join(c.workspace("day001-a"), "hello.cu")); !strings.Contains(string(data), "ERROR") {
		t.Errorf("the workspace's hello.cu: %q", data)
	}
	if _, err := os.Stat(filepath.Join(c.root, "lessons", "day001-a.md")); err == nil {
		t.Error("the edit wrote a lesson file")
	}

	// The edit survives a reload; Reset cell brings the lesson's code back.
	p.do("reload", chromedp.Reload())
	p.wait("the edit after a reload", `document.querySelector('.cell[data-cell="1"] .edited')?.hidden === false && document.querySelector('.cell[data-cell="1"] pre')?.textContent.includes("ERROR here")`)
	p.click(`.cell[data-cell="1"] button.reset`)
	p.wait("the lesson's code", `document.querySelector('.cell[data-cell="1"] pre')?.textContent.includes("hello from the GPU") && document.querySelector('.cell[data-cell="1"] .edited')?.hidden`)

	// Run all runs every cell in turn; Stop ends the long one, and its
	// process is gone.
	pidFile := filepath.Join(c.workspace("day001-a"), "long.pid")
	os.Remove(pidFile)
	p.click(`button.run-all`)
	p.wait("cells 1 to 3 ok, 4 running", `[1,2,3].every(n => document.querySelector('.cell[data-cell="'+n+'"] .cell-status')?.textContent.startsWith("✓ ok")) && `+status(4)+`.includes("running") && `+out(4)+`.includes("long")`)
	if s := p.eval(out(2)); s != "hello from the GPU\nsecond line\n" {
		t.Errorf("cell 2's output after Run all: %q", s)
	}
	data, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if pid == 0 {
		t.Fatalf("the long cell wrote no process id: %q", data)
	}
	p.click(`button.stop`)
	p.wait("the long cell stopped", status(4)+`.includes("stopped")`)
	if !gone(pid) {
		t.Errorf("the long cell's process %d runs on after Stop", pid)
	}

	// Leaving the page stops its cell.
	os.Remove(pidFile)
	p.click(`.cell[data-cell="4"] button.run`)
	p.wait("the long cell running", out(4)+`.includes("long")`)
	data, _ = os.ReadFile(pidFile)
	pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
	p.do("leave the page", chromedp.Navigate("about:blank"))
	if pid == 0 || !gone(pid) {
		t.Errorf("the long cell's process %d runs on after its page went away", pid)
	}
	p.do("come back", chromedp.Navigate(withToken(c.http.URL+"/day001-a.html")))
	p.wait("the exercises", `!!document.querySelector('.exercise[data-exercise="pipe"] button.check')`)

	// Check shows every check; a save re-checks and the verdict arrives.
	p.click(`.exercise[data-exercise="pipe"] button.check`)
	p.wait("the verdict", `!!document.querySelector('.exercise[data-exercise="pipe"] .verdict .checks')`)
	v := p.eval(`document.querySelector('.exercise[data-exercise="pipe"] .verdict').innerText`)
	for _, want := range []string{
		`✓ prints "12 iterations" (4 points)`, "✗ calls of cudaMallocAsync: at least 12 (0 of 6 points)",
		"expected: the pipeline should allocate once per iteration (12)", "cudaMallocAsync was called 0 times",
		"Race reported between Write access at 0x1a0 in pipe.cu:31", "hint: Call cudaMallocAsync on the iteration's stream.",
		"Not yet passed · 4 of 10 points",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("the verdict lacks %q:\n%s", want, v)
		}
	}
	os.WriteFile(exercise, []byte("// solved\n"), 0o644)
	p.wait("the pushed verdict", `(document.querySelector('.exercise[data-exercise="pipe"] .verdict-head.ok')||{}).textContent === "Passed · 10 of 10 points (checked after a save)" && document.querySelector('.exercise[data-exercise="pipe"] .mark')?.textContent === "✓"`)

	// A lesson saved: the page reloads with it.
	os.MkdirAll(filepath.Join(c.root, "lessons"), 0o755)
	os.WriteFile(filepath.Join(c.root, "lessons", "day001-a.md"), []byte(dayOne+"\nA paragraph added.\n"), 0o644)
	c.srv.Rebuild()
	p.wait("the page reloaded", `!!document.body?.innerText.includes("A paragraph added.")`)
}

// A page of another origin cannot make the server run a cell, with or
// without the token; a name pointed at the server (DNS rebinding) gets no
// page.
func TestBrowserRefusals(t *testing.T) {
	touch := "# Day 2: B\n\n```sh run\ntouch ran\n```\n"
	c := newCourse(t, map[string]string{"day001-a": dayOne, "day002-b": touch})
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>evil</title><script>
const body = JSON.stringify({page: "day002-b", session: "evil", cell: 1});
const a = fetch(%[1]q + "/_lessons/api/run", {method: "POST", mode: "no-cors", body}).then(() => "sent", e => "failed");
const b = fetch(%[1]q + "/_lessons/api/run", {method: "POST", headers: {"X-Lessons-Token": %[2]q, "Content-Type": "application/json"}, body}).then(r => "status " + r.status, e => "blocked");
Promise.all([a, b]).then(r => { document.title = r.join(","); });
</script>`, c.http.URL, c.srv.Token())
	}))
	defer evil.Close()
	_, port, _ := strings.Cut(strings.TrimPrefix(c.http.URL, "http://"), ":")
	p := &page{t: t, ctx: browsertest.New(t, browsertest.Options{Flags: map[string]any{"host-resolver-rules": "MAP rebound.test 127.0.0.1"}})}
	p.do("open the other site", chromedp.Navigate(evil.URL))
	p.wait("its requests done", `document.title.includes(",")`)
	// The no-cors request may be sent (the browser cannot tell); its
	// answer is refused, and nothing runs.
	if title := p.eval("document.title"); title != "sent,blocked" && title != "failed,blocked" {
		t.Errorf("the other site's requests: %q, want sent or failed, and blocked", title)
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(c.workspace("day002-b"), "ran")); err == nil {
		t.Error("a page of another origin ran a cell")
	}

	p.do("open the lesson by a rebound name", chromedp.Navigate(withToken("http://rebound.test:"+port+"/day001-a.html")))
	body := p.eval("document.body.innerText")
	if !strings.Contains(body, "is not this server") || strings.Contains(body, c.srv.Token()) {
		t.Errorf("the rebound name got: %q", body)
	}

	// The page itself runs the cell: the token in the page and its Origin.
	p.do("open the lesson", chromedp.Navigate(withToken(c.http.URL+"/day002-b.html")))
	p.wait("Run", `!!document.querySelector('.cell[data-cell="1"] button.run')`)
	p.click(`.cell[data-cell="1"] button.run`)
	p.wait("ok", status(1)+`.startsWith("✓ ok")`)
	if _, err := os.Stat(filepath.Join(c.workspace("day002-b"), "ran")); err != nil {
		t.Error("the page's own Run did not run the cell")
	}
}

// A program's terminal escapes (a colour, pip's hidden cursor) are not
// shown in the page as text.
func TestOutputEscapesInTheBrowser(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-e": "# E\n\n```sh run\nprintf 'a \\033[32mgreen\\033[0m \\033[?25lb\\033[?25h\\n'\n```\n"})
	p := &page{t: t, ctx: browsertest.New(t, browsertest.Options{Timeout: time.Minute})}
	p.do("open the lesson", chromedp.Navigate(withToken(c.http.URL+"/day001-e.html")))
	p.wait("Run", `!!document.querySelector('.cell[data-cell="1"] button.run')`)
	p.click(`.cell[data-cell="1"] button.run`)
	p.wait("ok", status(1)+`.startsWith("✓ ok")`)
	if s := p.eval(out(1)); s != "a green b\n" {
		t.Errorf("the output in the page: %q", s)
	}
}

// A progress bar's carriage returns and backspaces act as on a terminal:
// the page shows each line's last state, not every state on a line of its
// own; a "\r\n" split between two writes is one line end.
func TestOutputCarriageReturnsInTheBrowser(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-r": "# R\n\n```sh run\nprintf '10%%\\r50%%\\r100%%\\ndone\\r'; sleep 0.2; printf '\\nab\\bc\\n'\n```\n"})
	p := &page{t: t, ctx: browsertest.New(t, browsertest.Options{Timeout: time.Minute})}
	p.do("open the lesson", chromedp.Navigate(withToken(c.http.URL+"/day001-r.html")))
	p.wait("Run", `!!document.querySelector('.cell[data-cell="1"] button.run')`)
	p.click(`.cell[data-cell="1"] button.run`)
	p.wait("ok", status(1)+`.startsWith("✓ ok")`)
	if s := p.eval(out(1)); s != "100%\ndone\nac\n" {
		t.Errorf("the output in the page: %q", s)
	}
}
