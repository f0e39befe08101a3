package cli

import (
	"testing"

	"github.com/cudalessons/lessons/internal/iostreams"
)

func TestLintFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	g := &globals{courseDir: "c"}
	var got *LintOptions
	if err := execute(newLint(ios, g, func(o *LintOptions) error { got = o; return nil })); err != nil || got.g != g {
		t.Errorf("lint: %+v, %v", got, err)
	}
	wantUsage(t, execute(newLint(ios, g, func(*LintOptions) error { return nil }), "x"), "lint takes no arguments")
}

// TestLintTinyCourse runs the command itself on a course with no problem.
func TestLintTinyCourse(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	if err := execute(newLint(ios, &globals{courseDir: tinyCourse(t)}, nil)); err != nil || !contains(out.String(), "1 lesson, 1 exercise: no problems") {
		t.Errorf("lint: %q, %v", out.String(), err)
	}
}
