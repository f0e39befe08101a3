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

// A mutant whose program is the solution's counts as equivalent, one
// that shares another's program as what that one's run made of it; the
// summary says how many of each were not run, and how many programs the
// runs started; kills.tsv names the program a mutant shares.
func TestReportSamePrograms(t *testing.T) {
	r := &Report{Order: []string{"pipe"}, Took: 2 * time.Second, Started: 3, Again: 1, Outcomes: []Outcome{
		{Exercise: "pipe", Mutant: Mutant{ID: "delete-call@13"}, KilledBy: "calls of cudaFreeAsync"},
		{Exercise: "pipe", Mutant: Mutant{ID: "delete-call@14"}, KilledBy: "calls of cudaFreeAsync", SameAs: "delete-call@13"},
		{Exercise: "pipe", Mutant: Mutant{ID: "off-by-one@9"}, Equivalent: IdenticalReason, Identical: true},
		{Exercise: "pipe", Mutant: Mutant{ID: "host-wait@9"}, KilledBy: "[more] exits with status 0"},
		{Exercise: "pipe", Mutant: Mutant{ID: "sync-twin@9"}, KilledBy: "compiles"},
	}}
	var b strings.Builder
	r.Write(&b)
	out := b.String()
	for _, want := range []string{
		"pipe      5        4       1           ✓ 0",
		"5 mutants of 1 exercises in 2s: 4 killed, 1 equivalent, 0 surviving\n",
		"Not run, their programs compared byte for byte: 1 the solution's (equivalent), 1 another mutant's (judged by its run)\n",
		"The mutants' runs started 3 programs (1.5 for each mutant that ran, 1.5 a second); 1 made again alone on the machine (stopped at its limit while waiting in the GPU's driver beside others)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	var k strings.Builder
	if err := r.WriteKills(&k); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"pipe\tdelete-call@14\tcalls of cudaFreeAsync (the program of delete-call@13, not run again)\n",
		"pipe\toff-by-one@9\tequivalent: " + IdenticalReason + "\n",
	} {
		if !strings.Contains(k.String(), want) {
			t.Errorf("kills lack %q:\n%s", want, k.String())
		}
	}
}
