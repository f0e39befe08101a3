package cli

import (
	"errors"
	"testing"

	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/iostreams"
)

func TestGradeFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *gradeOptions
	var dir string
	var only []string
	cmd := newGrade(ios, &globals{}, func(o *gradeOptions, d string, x []string) error { got, dir, only = o, d, x; return nil })
	if err := execute(cmd, "subs", "pipe", "--regrade", "--per-gpu", "4", "-j", "3", "--gradebook", "b.db"); err != nil {
		t.Fatal(err)
	}
	if dir != "subs" || len(only) != 1 || only[0] != "pipe" || !got.regrade || got.perGPU != 4 || got.jobs != 3 || got.book != "b.db" {
		t.Errorf("options: %+v, %q, %q", got, dir, only)
	}
	cmd = newGrade(ios, &globals{}, func(o *gradeOptions, d string, x []string) error { got = o; return nil })
	if err := execute(cmd, "subs"); err != nil || got.perGPU != 0 || got.queues != 0 {
		t.Errorf("defaults: %+v, %v (0: chosen from the class)", got, err)
	}
	var usage *failure.Usage
	if err := execute(newGrade(ios, &globals{}, nil), "subs", "--per-gpu", "65"); !errors.As(err, &usage) {
		t.Errorf("--per-gpu 65: %v", err)
	}
}
