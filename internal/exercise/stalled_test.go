package exercise

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/runner"
)

// stalling runs as Plain does, but its program "runs" through stop: a
// stand-in for the runner's word on a run it stopped at its time limit.
type stalling struct {
	Plain
	stop func(spec runner.Spec) *runner.Result
}

func (s stalling) run(ctx context.Context, tk *Toolkit, j *Job, prog, device string, slot int) (*runPlace, error) {
	p, err := s.Plain.run(ctx, tk, j, prog, device, slot)
	if err != nil {
		return nil, err
	}
	p.runner = stopped(s.stop)
	return p, nil
}

type stopped func(spec runner.Spec) *runner.Result

func (f stopped) Run(_ context.Context, spec runner.Spec, _ io.Writer) (*runner.Result, error) {
	return f(spec), nil
}

const inTheDriver = "prog D in os_acquire_rwlock_write (ioctl)"

// A run stopped at its time limit while a thread waited in the GPU's
// driver makes a stalled verdict, on the public run or a hidden one; one
// stopped in its own code does not; either fails "ends by itself".
func TestStalledVerdict(t *testing.T) {
	tk := toolkit(t)
	s := spec(t, "[[hidden_run]]\nname = \"other\"\nargs = [\"7\"]\n\n[[check]]\nexit = 0\n\n[[check]]\nrun = \"other\"\nexit = 0\n")
	j := job(t, s, "x.cu", "// fake: exit 0\n")
	b, err := Build(context.Background(), tk, Plain{}, j, 0)
	if err != nil || b.Prog == "" {
		t.Fatalf("build: %+v %v", b, err)
	}
	stall := func(inDriver bool, hidden bool) func(runner.Spec) *runner.Result {
		return func(spec runner.Spec) *runner.Result {
			if hidden != slices.Contains(spec.Argv, "7") {
				return &runner.Result{}
			}
			r := &runner.Result{ExitCode: -1, TimedOut: true, InDriver: inDriver, Threads: "prog R"}
			if inDriver {
				r.Threads = inTheDriver
			}
			return r
		}
	}
	for _, c := range []struct {
		name             string
		inDriver, hidden bool
		want             string
	}{
		{"public run, in the driver", true, false, inTheDriver},
		{"hidden run, in the driver", true, true, "on the run other, timed out"},
		{"public run, its own hang", false, false, ""},
	} {
		v, err := RunAll(context.Background(), tk, stalling{stop: stall(c.inDriver, c.hidden)}, j, b.Prog, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		if c.want == "" && v.Stalled != "" || c.want != "" && !strings.Contains(v.Stalled, c.want) {
			t.Errorf("%s: stalled %q, want %q", c.name, v.Stalled, c.want)
		}
		if v.Passed() {
			t.Errorf("%s: a run stopped at its time limit passed: %+v", c.name, v.Results)
		}
	}
}
