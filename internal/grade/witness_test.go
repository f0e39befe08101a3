package grade

import (
	"testing"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/gradebook"
)

// TestRunAttemptWitness: an attempt is compared only when no run said
// it was not and the outside witness's comparison is among its results
// (a hidden run's, named after it, too); otherwise it is not witnessed,
// and says why.
func TestRunAttemptWitness(t *testing.T) {
	task := &Task{Student: "eve", Exercise: &course.Exercise{ID: "pool"}, Spec: &checker.Spec{Points: 10}}
	pass := checker.Result{Name: "exits with status 0", Pass: true}
	for _, tc := range []struct {
		name string
		ran  *Ran
		want string
	}{
		{"compared", &Ran{Results: []checker.Result{pass, {Name: checker.WitnessCheckName, Pass: true}}}, gradebook.Witnessed},
		{"a hidden run's comparison", &Ran{Results: []checker.Result{pass, {Name: "[big] " + checker.WitnessCheckName, Pass: true}}}, gradebook.Witnessed},
		{"no witness here", &Ran{Results: []checker.Result{pass}, Unwitnessed: "no outside witness here (turned off by LESSONS_WITNESS=off)"},
			"not witnessed: no outside witness here (turned off by LESSONS_WITNESS=off)"},
		{"a run not compared beside one compared", &Ran{Results: []checker.Result{pass, {Name: checker.WitnessCheckName, Pass: true}}, Unwitnessed: "on the run big, a Python script's counts are not compared"},
			"not witnessed: on the run big, a Python script's counts are not compared"},
		// A run judged elsewhere (a pilot's node) says only its results.
		{"no comparison among the results", &Ran{Results: []checker.Result{pass}}, "not witnessed: no count of its runs was compared"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := RunAttempt(task, &Built{}, tc.ran, nil)
			if a.Witness != tc.want {
				t.Errorf("witness %q, want %q", a.Witness, tc.want)
			}
		})
	}
}
