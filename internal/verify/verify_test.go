package verify

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/grade"
)

// TestRun: a build that fails says why and runs nothing; a run's error is
// the item's result; an item nothing went wrong with is ok.
func TestRun(t *testing.T) {
	ran := map[string]bool{}
	ok := &Item{Kind: "solution", Name: "a", work: steps(func(context.Context) error { return nil },
		func(context.Context, string) error { ran["a"] = true; return nil })}
	broken := &Item{Kind: "exercise", Name: "b", work: steps(func(context.Context) error { return errors.New("compile error at b.cu:3") },
		func(context.Context, string) error { ran["b"] = true; return nil })}
	fails := &Item{Kind: "solution", Name: "c", work: steps(func(context.Context) error { return nil },
		func(context.Context, string) error { return errors.New("fails: exits (exit status 1)") })}
	fails.work.Timed = true
	if err := Run(context.Background(), []*Item{ok, broken, fails}, grade.Slots{Jobs: 2, PerDevice: 2}); err != nil {
		t.Fatal(err)
	}
	if !ok.OK || ok.Got != "ok" || !ran["a"] {
		t.Errorf("ok: %+v", ok)
	}
	if broken.OK || broken.Got != "compile error at b.cu:3" || ran["b"] {
		t.Errorf("broken: %+v (ran %v)", broken, ran["b"])
	}
	if fails.OK || fails.Got != "fails: exits (exit status 1)" {
		t.Errorf("fails: %+v", fails)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Run(ctx, []*Item{{work: steps(func(context.Context) error { return nil }, nil)}}, grade.Slots{}); err == nil {
		t.Error("a verify stopped half way gave no error")
	}
}

func TestFirstFailure(t *testing.T) {
	res := []checker.Result{{Name: "exits", Pass: true}, {Name: "prints", Got: "nothing"}}
	if got := FirstFailure(res); got != "prints (nothing)" {
		t.Errorf("first failure %q", got)
	}
}

// A solution whose hidden run's case was not set up (arranged) passes,
// and verify says which checks were not made; a plain skip (no
// compute-sanitizer here) is not news.
func TestNotMade(t *testing.T) {
	res := []checker.Result{
		{Name: "clean under memcheck", Pass: true, Skipped: true, Got: "skipped: compute-sanitizer is not installed"},
		{Name: "moved", Pass: true, Skipped: true, Review: "the checks of hidden run \"taken\" were not made"},
	}
	if got := NotMade(res); got != res[1].Review {
		t.Errorf("NotMade = %q", got)
	}
	if got := NotMade(res[:1]); got != "" {
		t.Errorf("a sanitizer skip: NotMade = %q", got)
	}
}

// TestWrongJudge: the expected text is looked for, whatever its case,
// in each failed check as a student reads it; passed checks do not count.
func TestWrongJudge(t *testing.T) {
	w := &WrongAnswer{Expect: "Whole Device"}
	w.judge([]checker.Result{
		{Name: "prints the sum", Pass: true, Want: "the whole device"},
		{Name: "calls of cudaDeviceSynchronize: exactly 1", Want: "nothing waits for the whole device", Got: "3"},
	})
	if !w.OK() || w.Matched != "calls of cudaDeviceSynchronize: exactly 1: nothing waits for the whole device (got 3)" {
		t.Errorf("%+v", w)
	}
	w = &WrongAnswer{Expect: "leak"}
	w.judge([]checker.Result{{Name: "exits with status 0", Got: "1"}})
	if w.OK() || !strings.Contains(w.result(), `no failure says "leak"`) {
		t.Errorf("%+v: %s", w, w.result())
	}
}

// An exercise whose runs need more GPUs than the machine gives is not
// run: its items say so, count apart from the passes and the surprises,
// and so do its wrong answers.
func TestTooFewGPUs(t *testing.T) {
	root := t.TempDir()
	c := &course.Course{Root: root}
	x := &course.Exercise{ID: "peer-pool", Student: "exercises/day075/peer_pool.cu", Solution: "solutions/day075/peer_pool.cu"}
	it := exerciseItem(c, x, &checker.Spec{GPUs: 2}, Options{Root: root}, "solution", x.Solution, true)
	if err := it.judge(grade.Outcome{Built: &grade.Built{}, RunErr: &grade.TooFewGPUs{Need: 2, Have: 1}}); err != nil {
		t.Fatal(err)
	}
	if !it.OK || !it.Skipped || !strings.Contains(it.Got, "skipped: not run: it needs 2 GPUs") {
		t.Fatalf("%+v", it)
	}
	var b strings.Builder
	if err := WriteTable(&b, 200, []*Item{it, {Kind: "lesson", Name: "day001", Want: "every cell runs", OK: true, Got: "ok"}}, false, 0); err != nil {
		t.Errorf("a skipped item is a surprise: %v", err)
	}
	if out := b.String(); !strings.Contains(out, "- skipped: not run") || !strings.Contains(out, "1 as expected, 0 surprises, 1 not run (they need more GPUs than this machine has)") {
		t.Errorf("the table:\n%s", out)
	}
	w := &WrongAnswer{Exercise: "peer-pool", Name: "no_access.patch", Skipped: (&grade.TooFewGPUs{Need: 2, Have: 1}).Error()}
	r := &WrongReport{Answers: []*WrongAnswer{w}, Order: []string{"peer-pool"}, Counts: map[string]int{"peer-pool": 1}}
	b.Reset()
	r.Write(&b)
	if r.Bad() != 0 || !strings.Contains(b.String(), "- skipped: not run: it needs 2 GPUs") || !strings.Contains(b.String(), "0 as expected, 0 not") ||
		!strings.Contains(b.String(), "1 program not run here") {
		t.Errorf("the wrong answers:\n%s", b.String())
	}
}
