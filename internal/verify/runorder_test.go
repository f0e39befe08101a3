package verify

import (
	"strings"
	"testing"
)

// The runs a mutant makes first are those that killed the most of its
// operator's mutants in its exercise so far, then of its exercise's; with
// nothing learnt, the spec's order (the public run first).
func TestRunOrder(t *testing.T) {
	var r runOrder
	runs := []string{"", "small", "large"}
	got := func(x, op string) string { return strings.Join(r.runs(x, op, runs), ",") }
	if g := got("a", "host-wait"); g != ",small,large" {
		t.Errorf("nothing learnt: %q", g)
	}
	r.kills = map[string]map[string]int{
		"a host-wait": {"large": 3, "": 1},
		"a":           {"large": 3, "": 5, "small": 4},
	}
	if g := got("a", "host-wait"); g != "large,,small" {
		t.Errorf("host-wait in a: %q", g)
	}
	if g := got("a", "off-by-one"); g != ",small,large" {
		t.Errorf("off-by-one in a (the exercise's kills): %q", g)
	}
	if g := got("b", "host-wait"); g != ",small,large" {
		t.Errorf("another exercise: %q", g)
	}
	if strings.Join(runs, ",") != ",small,large" {
		t.Errorf("the spec's runs were reordered in place: %q", runs)
	}
}
