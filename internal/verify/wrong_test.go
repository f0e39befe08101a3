package verify

import (
	"strings"
	"testing"
)

// A --wrong run stopped half way (Ctrl-C, a time limit) writes what it
// judged; those it did not reach are neither as expected nor not, and
// do not make the run's exit a failure by themselves.
func TestWrongReportStopped(t *testing.T) {
	r := &WrongReport{
		Answers: []*WrongAnswer{
			{Exercise: "pipe", Name: "a.patch", Expect: "leak", Failed: []string{"leak: 0"}, Matched: "leak: 0", judged: true},
			{Exercise: "pipe", Name: "b.patch", Expect: "race"},
		},
		Order:   []string{"pipe"},
		Counts:  map[string]int{"pipe": 2},
		Stopped: true,
	}
	if r.Bad() != 0 || r.Err() != nil {
		t.Errorf("Bad %d, Err %v: an answer not reached is not a bad one", r.Bad(), r.Err())
	}
	var b strings.Builder
	r.Write(&b)
	out := b.String()
	for _, want := range []string{"✓ leak: 0", "- not judged: verify was stopped before its turn", "1 as expected, 0 not", "stopped before 1 program was judged"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	// Not stopped, the same answer is one that was not as expected.
	r.Stopped = false
	if r.Bad() != 1 {
		t.Errorf("Bad %d: an answer never judged in a whole run is a bad one", r.Bad())
	}
}
