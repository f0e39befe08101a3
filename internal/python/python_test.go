package python

import (
	"context"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

func start(t *testing.T) *Session {
	t.Helper()
	interp, err := Find(context.Background())
	if err != nil {
		t.Skip(err)
	}
	s, err := Start(context.Background(), interp, t.TempDir(), os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func run(t *testing.T, s *Session, n int, code string, timeout time.Duration) (*Result, string) {
	t.Helper()
	var out strings.Builder
	res, err := s.Run(context.Background(), n, code, &out, timeout)
	if err != nil {
		t.Fatalf("cell [%d]: %v", n, err)
	}
	return res, out.String()
}

// The cells share one namespace, in order; the value of a last
// expression is shown as Jupyter shows it; ! lines run through the shell
// with the namespace's values; an error gives its traceback and the
// session goes on.
func TestSession(t *testing.T) {
	s := start(t)
	if res, out := run(t, s, 1, "x = 6 * 7\nprint('x is', x)", 0); !res.OK || out != "x is 42\n" {
		t.Errorf("cell 1: %+v %q", res, out)
	}
	if res, out := run(t, s, 2, "x + 1", 0); !res.OK || out != "43\n" || len(res.Outputs) != 1 || res.Outputs[0].Type != "execute_result" {
		t.Errorf("cell 2: %+v %q", res, out)
	}
	if res, out := run(t, s, 3, "name = 'world'\n!echo hello {name} $x\nfiles = !echo a; echo b\nprint(files)", 0); !res.OK || out != "hello world 42\n['a', 'b']\n" {
		t.Errorf("cell 3: %+v %q", res, out)
	}
	// as IPython's var_expand: where one name is the shell's, the line is
	if res, out := run(t, s, 31, "!echo {name} $LESSONS_NOT_PYTHON", 0); !res.OK || out != "{name}\n" {
		t.Errorf("a line with a shell variable: %+v %q", res, out)
	}
	res, out := run(t, s, 4, "def f():\n    return 1 / 0\nf()", 0)
	if res.OK || res.Ename != "ZeroDivisionError" || !strings.Contains(out, "Traceback") || !strings.Contains(out, `File "<cell [4]>", line 2, in f`) || !strings.Contains(out, "return 1 / 0") {
		t.Errorf("cell 4: %+v\n%s", res, out)
	}
	if strings.Contains(out, "driver") || strings.Contains(out, "<string>") {
		t.Errorf("the driver's own frames are in the traceback:\n%s", out)
	}
	if res, _ := run(t, s, 5, "print(x)", 0); !res.OK {
		t.Errorf("after an error the session is gone: %+v", res)
	}
	res, out = run(t, s, 6, "%lsmagic", 0)
	if res.OK || res.Ename != "UsageError" || !strings.Contains(out, "%lsmagic needs IPython") {
		t.Errorf("a magic: %+v %q", res, out)
	}
	if res, out := run(t, s, 7, "!exit 3\nprint('after')", 0); res.OK || !strings.Contains(out, "after") || !strings.Contains(res.Evalue, "exited with status 3") {
		t.Errorf("a failing ! line: %+v %q", res, out)
	}
}

// An image a value shows (_repr_png_, as matplotlib's figures and PIL's
// images have) comes back as an output.
func TestImage(t *testing.T) {
	s := start(t)
	res, _ := run(t, s, 1, "class P:\n    def _repr_png_(self): return b'\\x89PNG'\nP()", 0)
	if !res.OK || len(res.Outputs) != 1 || res.Outputs[0].MIME != "image/png" || res.Outputs[0].Data != "iVBORw==" {
		t.Errorf("%+v", res)
	}
}

// A cell past its time limit is interrupted; the session keeps its state.
func TestTimeLimit(t *testing.T) {
	s := start(t)
	run(t, s, 1, "y = 5", 0)
	res, out := run(t, s, 2, "import time\nprint('start', flush=True)\nwhile True: time.sleep(0.01)", 300*time.Millisecond)
	if res.OK || !res.TimedOut || res.Ename != "KeyboardInterrupt" || !strings.Contains(out, "start") {
		t.Errorf("%+v %q", res, out)
	}
	if res, out := run(t, s, 3, "print(y)", 0); !res.OK || out != "5\n" {
		t.Errorf("after the interrupt: %+v %q", res, out)
	}
}

// A cell that ignores the interrupt is killed with its process a grace
// later; the session is then over, and says so.
func TestDeafCellKilled(t *testing.T) {
	s := start(t)
	s.proc.SetGrace(100 * time.Millisecond)
	res, err := s.Run(context.Background(), 1, deafCell, io.Discard, 200*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "a cell did not stop when interrupted") || res == nil || !res.TimedOut || res.OK {
		t.Fatalf("%+v %v", res, err)
	}
	if s.Alive() {
		t.Error("the session is alive after the kill")
	}
	if _, err := s.Run(context.Background(), 2, "print(1)", io.Discard, 0); err == nil {
		t.Error("a cell ran after the kill")
	}
}

// deafCell ignores SIGINT, as a cell stuck in C code does.
const deafCell = "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint('deaf', flush=True)\nwhile True: time.sleep(0.01)"

// BenchmarkCell is what a trivial cell costs through the driver: the
// round trip lessons adds over Python's own execution.
func BenchmarkCell(b *testing.B) {
	interp, err := Find(context.Background())
	if err != nil {
		b.Skip(err)
	}
	s, err := Start(context.Background(), interp, b.TempDir(), os.Environ())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var out strings.Builder
	for i := 0; b.Loop(); i++ {
		out.Reset()
		if res, err := s.Run(context.Background(), i, "x = 1", &out, 0); err != nil || !res.OK {
			b.Fatal(err, res)
		}
	}
}

// %timeit and %time, which numba and CuPy notebooks measure their kernels
// with, run without IPython as IPython runs them: the statement in the
// cell's namespace, and its time in IPython's words.
func TestTimeit(t *testing.T) {
	s := start(t)
	run(t, s, 1, "calls = []\ndef f():\n    calls.append(1)", 0)
	res, out := run(t, s, 2, "%timeit -n 3 -r 2 f()", 0)
	if !res.OK || !regexp.MustCompile(`^\S+ (s|ms|µs|ns) ± \S+ (s|ms|µs|ns) per loop \(mean ± std\. dev\. of 2 runs, 3 loops each\)\n$`).MatchString(out) {
		t.Errorf("%%timeit: %+v %q", res, out)
	}
	if res, out := run(t, s, 3, "len(calls)", 0); !res.OK || out != "6\n" {
		t.Errorf("the statement ran %q times, want 6 (3 loops, 2 runs)", out)
	}
	res, out = run(t, s, 4, "%%timeit -n1 -r1 y = 2\n!true\ncalls.append(y)", 0)
	if !res.OK || !strings.Contains(out, "per loop (mean ± std. dev. of 1 run, 1 loop each)") {
		t.Errorf("%%%%timeit: %+v %q", res, out)
	}
	times := regexp.MustCompile(`^CPU times: user \S+ \S+, sys: \S+ \S+, total: \S+ \S+\nWall time: \S+ (s|ms|µs|ns)\n`)
	res, out = run(t, s, 5, "v = %time sum(calls)\nv", 0)
	if !res.OK || !times.MatchString(out) || !strings.HasSuffix(out, "\n8\n") {
		t.Errorf("%%time: %+v %q", res, out)
	}
	res, out = run(t, s, 6, "%%time\nw = 1\nw + 1", 0)
	if !res.OK || !times.MatchString(out) || !strings.HasSuffix(out, "\n2\n") {
		t.Errorf("%%%%time: %+v %q", res, out)
	}
}

// %%script python (and %%python3, %%perl, ...) feeds the cell to the
// program, as IPython does: numba's tutorial runs its typing exercises
// in a Python of their own with it.
func TestScriptMagic(t *testing.T) {
	s := start(t)
	if res, out := run(t, s, 1, "%%script python\nimport sys\nprint('own process', __name__)\nsys.exit(0)", 0); !res.OK || out != "own process __main__\n" {
		t.Errorf("%%%%script python: %+v %q", res, out)
	}
	if res, out := run(t, s, 2, "%%python3\nraise SystemExit(4)", 0); res.OK || !strings.Contains(res.Evalue, "exited with status 4") {
		t.Errorf("a failing script: %+v %q", res, out)
	}
	if res, out := run(t, s, 3, "%%script --bg python\nprint(1)", 0); res.OK || res.Ename != "UsageError" {
		t.Errorf("an option lessons does not do: %+v %q", res, out)
	}
}
