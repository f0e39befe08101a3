package kernels_test

import (
	"strings"
	"testing"
)

// Device variables followed for races (review/blind26, issue 36): a
// pool's counters may be no allocation at all but a __device__ array of
// the program, its device address from cudaGetSymbolAddress
// (review/blind26's correct stream-pools design). The library follows
// the uses of such a variable's bytes as it follows an allocation's:
// blind26's wrong design, which clears pool i's counters on stream i+1,
// races pool i's first reset and kernel on stream i (unordered_uses),
// however the GPU's timing falls; before, no use of the variable was seen
// and it passed. Every correct design the course keeps (the solution,
// its right alternatives, every blind set's correct.cu) leaves none.
func TestHarnessesFollowDeviceVariablesForRaces(t *testing.T) {
	h := buildHarnessRig(t)
	const sol = "solutions/day087/stream_pools.cu"
	type program struct {
		name    string
		content []byte
		race    bool
	}
	var ps []program
	symbol := false
	for _, c := range correctDesigns(t, sol, "solutions/day087/right/stream-pools", "stream-pools", "correct.cu") {
		ps = append(ps, program{name: c.name, content: c.content})
		symbol = symbol || strings.Contains(string(c.content), "cudaGetSymbolAddress")
	}
	if !symbol {
		t.Fatal("no correct stream-pools design takes a device variable's address any more: mend this test")
	}
	ps = append(ps, program{
		name:    "wrong/blind26_counters_cleared_on_the_next_pools_stream",
		content: patched(t, sol, "solutions/day087/wrong/stream-pools/blind26_counters_cleared_on_the_next_pools_stream.patch"),
		race:    true,
	})
	for i, p := range ps {
		prog := h.build(t, "symbols87-"+string(rune('a'+i)), sol, sol, p.content)
		s, out := recordAnyExit(t, h, prog)
		note := s.RaceNote("unordered_uses")
		t.Logf("%s: unordered_uses %d %s", p.name, s.UnorderedUses, note)
		if (s.UnorderedUses > 0) != p.race {
			t.Errorf("%s: unordered_uses %d (%s), want some: %v\n%s", p.name, s.UnorderedUses, note, p.race, out)
		}
		if p.race && !strings.Contains(note, "device variable") {
			t.Errorf("%s: the race %q does not name the device variable", p.name, note)
		}
	}
}
