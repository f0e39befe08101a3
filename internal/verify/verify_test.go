package verify

import (
	"context"
	"errors"
	"testing"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/grade"
)

// TestRun: a build that fails says why and runs nothing; a run's error is
// the item's result; an item nothing went wrong with is ok.
func TestRun(t *testing.T) {
	ran := map[string]bool{}
	ok := &Item{Kind: "solution", Name: "a", build: func(context.Context) error { return nil },
		run: func(context.Context, string) error { ran["a"] = true; return nil }}
	broken := &Item{Kind: "exercise", Name: "b", build: func(context.Context) error { return errors.New("compile error at b.cu:3") },
		run: func(context.Context, string) error { ran["b"] = true; return nil }}
	fails := &Item{Kind: "solution", Name: "c", alone: true, build: func(context.Context) error { return nil },
		run: func(context.Context, string) error { return errors.New("fails: exits (exit status 1)") }}
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
	if err := Run(ctx, []*Item{{build: func(context.Context) error { return nil }}}, grade.Slots{}); err == nil {
		t.Error("a verify stopped half way gave no error")
	}
}

func TestFirstFailure(t *testing.T) {
	res := []checker.Result{{Name: "exits", Pass: true}, {Name: "prints", Got: "nothing"}}
	if got := FirstFailure(res); got != "prints (nothing)" {
		t.Errorf("first failure %q", got)
	}
}
