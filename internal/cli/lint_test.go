package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/author"
	"github.com/cudalessons/lessons/internal/course/coursetest"
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

// A lesson that shows a command lessons lacks, or names an exercise or a
// lesson the course lacks, is warned about, at its line; prose that only
// says "lessons" and commands that exist are not.
func TestLintRefs(t *testing.T) {
	dir := coursetest.Tiny(t, []string{"pipe"}, map[string]string{"lessons/day001-a.md": "# A\n\n" +
		"The lessons in this course build on each other; run `lessons chek pipe` (sic),\n" +
		"then `lessons hint pipes` and `lessons show 1` and `lessons run 9`.\n\n" +
		"```sh\nlessons check pipe\nlessons watch nope && lessons run a\ncp -r lessons backup/\n```\n"})
	ios, _, _, errOut := iostreams.Test()
	if code := Run(ios, []string{"--course", dir, "lint"}); code != 0 {
		t.Fatalf("lint: exit %d: %s", code, errOut)
	}
	got := errOut.String()
	for _, want := range []string{
		"day001-a.md:3: the lesson says to run lessons chek, but lessons has no command chek",
		"day001-a.md:4: the lesson says to run lessons hint pipes, but the course has no exercise pipes",
		"day001-a.md:4: the lesson says to run lessons run 9, but no lesson for day 9",
		"day001-a.md:8: the lesson says to run lessons watch nope, but the course has no exercise nope",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "warning:"); n != 4 {
		t.Errorf("%d warnings, want 4:\n%s", n, got)
	}
}

// author.Commands, which lint reads lessons' commands against, are the
// commands lessons has.
func TestLintKnowsTheCommands(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var names []string
	for _, c := range NewRoot(ios).Commands() {
		names = append(names, c.Name())
	}
	names = append(names, "completion", "help") // cobra's own, added at Execute
	slices.Sort(names)
	names = slices.Compact(names)
	if !slices.Equal(names, author.Commands) {
		t.Errorf("lessons has %v, author.Commands says %v", names, author.Commands)
	}
}
