package python

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/runner"
)

// A replayed session runs each cell as a run of its own, with the cells
// above it that ran well first (their output left out, how they went
// said): a cell sees their state; Close forgets it, as a kernel's
// restart does.
func TestReplayed(t *testing.T) {
	interp, err := Find(context.Background())
	if err != nil {
		t.Skip(err)
	}
	s := &Replayed{Interp: interp, Runner: runner.Exec{}, Dir: t.TempDir(), Env: os.Environ()}
	run := func(n int, code string, timeout time.Duration) (*Result, string) {
		t.Helper()
		var out strings.Builder
		res, err := s.Run(context.Background(), n, code, &out, timeout)
		if err != nil {
			t.Fatalf("cell [%d]: %v", n, err)
		}
		return res, out.String()
	}
	if res, out := run(1, "x = 6 * 7\nprint('one')", 0); !res.OK || out != "one\n" {
		t.Fatalf("cell 1: %+v %q", res, out)
	}
	res, out := run(2, "print(x + 1)\nx", 0)
	if !res.OK || out != "(the Python cells run before ran again first, for their state: [1] ok)\n43\n42\n" || len(res.Outputs) != 1 {
		t.Fatalf("cell 2: %+v %q", res, out)
	}
	// Run again, a cell replaces its last run; the cells below it are
	// not run before it.
	if res, out := run(1, "x = 7\nprint('one again')", 0); !res.OK || out != "one again\n" {
		t.Fatalf("cell 1 again: %+v %q", res, out)
	}
	if res, out := run(3, "print(x)", 0); !res.OK || !strings.HasSuffix(out, "state: [1] ok, [2] ok)\n7\n") {
		t.Fatalf("cell 3: %+v %q", res, out)
	}
	if res, out := run(4, "1 / 0", 0); res.OK || res.Ename != "ZeroDivisionError" || !strings.Contains(out, "Traceback") {
		t.Fatalf("cell 4: %+v %q", res, out)
	}
	if res, _ := run(5, "import time\ntime.sleep(30)", 300*time.Millisecond); res.OK || !res.TimedOut {
		t.Fatalf("cell 5 past its limit: %+v", res)
	}
	s.Close()
	if res, out := run(3, "print(x)", 0); res.OK || res.Ename != "NameError" || strings.Contains(out, "ran again") {
		t.Fatalf("cell 3 after Close: %+v %q", res, out)
	}
}
