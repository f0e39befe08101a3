package author

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestReport(t *testing.T) {
	r := &Report{Order: []string{"pipe", "pool"}, Took: 1500 * time.Millisecond, Outcomes: []Outcome{
		{Exercise: "pipe", Mutant: Mutant{ID: "delete-call@13"}, KilledBy: "calls of cudaFreeAsync"},
		{Exercise: "pipe", Mutant: Mutant{ID: "sync-twin@13", Diff: "@@ line 12 @@\n-a\n+b\n"}, Passed: []string{"exits with status 0", "prints \"done\""}},
		{Exercise: "pipe", Mutant: Mutant{ID: "host-sync@13"}, Equivalent: "the loop runs once"},
		{Exercise: "pool", Mutant: Mutant{ID: "print-recorded"}, Err: errors.New("nvcc: killed")},
	}}
	var b strings.Builder
	r.Write(&b)
	out := b.String()
	for _, want := range []string{
		"pipe      3        1       1           ✗ 1",
		"pool      1        0       0           ✗ 0",
		"survivor pipe sync-twin@13: passed every check (exits with status 0; prints \"done\")\n    @@ line 12 @@\n    -a\n    +b\n",
		`mutant = "sync-twin@13"`,
		"not judged pool print-recorded: nvcc: killed",
		"4 mutants of 2 exercises in 1.5s: 1 killed, 1 equivalent, 1 surviving, 1 not judged",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if r.Survivors() != 1 || r.Errors() != 1 {
		t.Errorf("survivors %d, errors %d", r.Survivors(), r.Errors())
	}
}
