package page

import (
	"reflect"
	"testing"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/serve"
)

// The page's verdict is the student's, each check with its points and,
// when it failed, its hint; the output is the compiler's log, then the
// program's.
func TestVerdict(t *testing.T) {
	exit := &checker.Check{Points: 4}
	calls := &checker.Check{Points: 6, Hint: "Allocate per iteration."}
	st := &exercise.Student{
		Exercise: &course.Exercise{ID: "pipe"},
		Spec:     &checker.Spec{Points: 10},
		Results: []checker.Result{
			{Name: "exits 0", Pass: true, Check: exit},
			{Name: "calls: at least 12", Pass: false, Want: "12", Got: "0", Check: calls},
		},
		Log:    "warning: unused\n",
		Output: "12 iterations\n",
		Hints:  []string{"Allocate per iteration."},
	}
	want := &serve.Verdict{Exercise: "pipe", Passed: false, Score: st.Score(), Points: 10, Hints: []string{"Allocate per iteration."},
		Output: "warning: unused\n12 iterations",
		Checks: []serve.CheckResult{
			{Name: "exits 0", Pass: true, Points: 4},
			{Name: "calls: at least 12", Want: "12", Got: "0", Points: 6, Hint: "Allocate per iteration."},
		}}
	if got := Verdict(st); !reflect.DeepEqual(got, want) {
		t.Errorf("Verdict:\n got %+v\nwant %+v", got, want)
	}
}

// The class's Check (an attempt graded in the sandbox) shows what the
// page's shows for the same run: a skipped check skipped, not passed, and
// the exercise's hint after the failed checks'; the hidden checks only
// counted. The class's used to drop the hint and show a skipped check as ✓.
func TestAttemptVerdictIsThePagesVerdict(t *testing.T) {
	x := &course.Exercise{ID: "pipe", Hints: []string{"Think about where the pool lives.", "Read day 70."}}
	calls := &checker.Check{Points: 6, Hint: "Allocate per iteration."}
	st := &exercise.Student{
		Exercise: x,
		Spec:     &checker.Spec{Points: 10},
		Results: []checker.Result{
			{Name: "exits 0", Pass: true, Check: &checker.Check{Points: 4}},
			{Name: "memcheck: no errors", Pass: true, Skipped: true, Got: "skipped: compute-sanitizer is not installed", Check: &checker.Check{}},
			{Name: "calls: at least 12", Pass: false, Want: "12", Got: "0", Check: calls},
		},
		Output: "12 iterations",
		Hints:  []string{"Allocate per iteration.", "Think about where the pool lives."},
	}
	a := &gradebook.Attempt{Status: gradebook.Failed, Points: st.Score(), MaxPoints: 10, Output: "12 iterations", Checks: []gradebook.Check{
		{Name: "exits 0", Passed: true, Points: 4},
		{Name: "memcheck: no errors", Passed: true, Got: "skipped: compute-sanitizer is not installed"},
		{Name: "calls: at least 12", Expected: "12", Got: "0", Hint: "Allocate per iteration.", Points: 6},
		{Name: "the secret", Hidden: true, Hint: "not for the page"},
	}}
	page, class := Verdict(st), AttemptVerdict(x, a, 1)
	page.Hidden = 1
	if !reflect.DeepEqual(page, class) {
		t.Errorf("the class's verdict is not the page's:\nclass %+v\n page %+v", class, page)
	}
	if !class.Checks[1].Skipped || len(class.Hints) != 2 || class.Hints[1] != x.Hint() {
		t.Errorf("the class's verdict: skipped %v, hints %q", class.Checks[1].Skipped, class.Hints)
	}
	a.Status, a.Reason = gradebook.Error, "the build node left"
	if v := AttemptVerdict(x, a, 0); v.Error != "the build node left" || v.Passed {
		t.Errorf("an attempt that could not be graded: %+v", v)
	}
	a.Status, a.Checks = gradebook.Passed, a.Checks[:2]
	if v := AttemptVerdict(x, a, 0); !v.Passed || len(v.Hints) != 0 {
		t.Errorf("a pass gives hints: %q", v.Hints)
	}
}
