package page

import (
	"reflect"
	"testing"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
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
