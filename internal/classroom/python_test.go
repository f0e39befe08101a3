package classroom

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/python"
	"github.com/cudalessons/lessons/internal/render"
	"github.com/cudalessons/lessons/internal/rig"
	"github.com/cudalessons/lessons/internal/runner"
)

// countingRunner is the cells' runner (the sandbox's seam), counting the
// runs it was given.
type countingRunner struct {
	n     *atomic.Int32
	inner runner.Runner
}

func (r countingRunner) Run(ctx context.Context, spec runner.Spec, out io.Writer) (*runner.Result, error) {
	r.n.Add(1)
	return r.inner.Run(ctx, spec, out)
}

// withPythonLesson adds a lesson of two Python cells to the test course.
func withPythonLesson(t *testing.T, cfg *Config) {
	root := cfg.Course.Root
	writeTree(t, root, map[string]string{
		"course.toml":          strings.Replace(testCourse["course.toml"], "[[exercise]]", "[[lesson]]\nfile = \"lessons/day002-py.md\"\n\n[[exercise]]", 1),
		"lessons/day002-py.md": "# Day 2: Python\n\n```python run\nx = 6 * 7\nprint('set', x)\n```\n\n```python run\nprint('x is', x)\n```\n",
	})
	c, err := course.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Course = c
	cfg.Site = func() (map[string][]byte, error) { return render.Site(c) }
}

// A student's Python cells run as their CUDA cells do: each a run of its
// own through the queue on the cells' runner (the sandbox), with the
// cells above that ran run again first for their state.
func TestPythonCellsRunThroughTheQueue(t *testing.T) {
	interp, err := python.Find(context.Background())
	if err != nil {
		t.Skip(err)
	}
	var runs atomic.Int32
	tc := newTestClass(t, func(cfg *Config) {
		withPythonLesson(t, cfg)
		cfg.Python = interp
		cfg.Cells = func(ws string, slot int) runner.Runner { return countingRunner{&runs, runner.Exec{}} }
	})
	ann := tc.browser()
	ann.signin(tc.invite("ann"))
	out, status := ann.runCell("day002-py", 1)
	if strings.TrimSpace(status) != "ok" || !strings.Contains(out, "in the class's sandbox") || !strings.HasSuffix(out, "set 42\n") {
		t.Fatalf("cell 1: %q, %q", out, status)
	}
	out, status = ann.runCell("day002-py", 2)
	if strings.TrimSpace(status) != "ok" || !strings.HasSuffix(out, "state: [1] ok)\nx is 42\n") {
		t.Fatalf("cell 2: %q, %q", out, status)
	}
	if n := runs.Load(); n != 2 {
		t.Errorf("%d runs on the cells' runner, want 2 (one a cell)", n)
	}
	log, _ := os.ReadFile(filepath.Join(tc.dir, PrivateDir, "audit.log"))
	if !strings.Contains(string(log), `"action":"run","detail":"day002-py [2]"`) {
		t.Errorf("the audit log lacks the Python cell's run:\n%s", log)
	}
}

// With no python3 for the sandbox, a Python cell says it was not run,
// and why.
func TestPythonCellNotRunSaysWhy(t *testing.T) {
	tc := newTestClass(t, func(cfg *Config) {
		withPythonLesson(t, cfg)
		cfg.Python, cfg.NoPython = nil, "the class server's python3 (/root/.pyenv/shims/python3) is outside what the sandbox may read"
	})
	ann := tc.browser()
	ann.signin(tc.invite("ann"))
	out, status := ann.runCell("day002-py", 1)
	if !strings.HasPrefix(status, "skipped not run: the class server's python3") {
		t.Fatalf("cell 1: %q, %q", out, status)
	}
}

// In the sandbox a Python cell writes its workspace and nothing else,
// reads no file outside what runs may read, and reaches no network.
func TestPythonInTheSandbox(t *testing.T) {
	const py = "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no " + py)
	}
	// The run users could not reach this test binary, the sandbox's
	// helper, in the build's folder: the sandbox without them.
	t.Setenv("LESSONS_SANDBOX_USERS", "off")
	ws := filepath.Join(t.TempDir(), "ws")
	os.MkdirAll(ws, 0o755)
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("s3cret"), 0o644)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	s := &python.Replayed{Interp: &python.Interpreter{Path: py, Version: "3"}, Runner: rig.SandboxCells(nil, "", nil)(ws, 0),
		Dir: ws, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + ws}}
	code := fmt.Sprintf(`open("mine.txt", "w").write("ok")
for what, f in [("read", lambda: open(%q).read()), ("write", lambda: open("/tmp/escaped", "w")),
                ("network", lambda: __import__("socket").create_connection(("127.0.0.1", %d), 2))]:
    try:
        f()
        print(what, "reached")
    except OSError as e:
        print(what, "refused")
`, secret, ln.Addr().(*net.TCPAddr).Port)
	var out strings.Builder
	res, err := s.Run(context.Background(), 1, code, &out, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || out.String() != "read refused\nwrite refused\nnetwork refused\n" {
		t.Fatalf("%+v\n%s", res, out.String())
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "mine.txt")); string(data) != "ok" {
		t.Errorf("the workspace's file: %q", data)
	}
}
