package verify

import (
	"errors"
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

// An unseen mistake is listed with why no check sees it, never judged,
// and counted apart: neither a wrong answer as expected nor a bad one.
// One that no longer applies to its solution is a bad one, as a wrong
// answer's stale patch is.
func TestWrongReportUnseen(t *testing.T) {
	r := &WrongReport{
		Answers: []*WrongAnswer{
			{Exercise: "pool", Name: "a.patch", Expect: "leak", Failed: []string{"leak: 0"}, Matched: "leak: 0", judged: true},
			{Exercise: "pool", Name: "lanes.patch", Unseen: "the figures come out the same"},
		},
		Order:  []string{"pool"},
		Counts: map[string]int{"pool": 1},
	}
	if r.Bad() != 0 || r.Err() != nil {
		t.Errorf("Bad %d, Err %v: an unseen mistake is not a bad answer", r.Bad(), r.Err())
	}
	var b strings.Builder
	r.Write(&b)
	out := b.String()
	for _, want := range []string{"lanes.patch (unseen)", "- not judged: no check can see it: the figures come out the same",
		"1 wrong answer and 0 correct alternatives judged", "1 as expected, 0 not", "1 unseen mistake listed, not judged"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	r.Answers[1].Err = errors.New("lanes.patch:6: hunk 1 no longer applies")
	if r.Bad() != 1 {
		t.Errorf("Bad %d: an unseen mistake that no longer applies is a bad one", r.Bad())
	}
}
