package kernels_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// A scratch buffer allocated on one branch of step's capture and used on
// the other, with no edge between the two (verify's mutants
// other-stream@168/s2 and @169/s: they passed every check on the H200
// after the capture model changed): the use is not ordered after the
// allocation node, at every launch.
func TestHarnessesShowGraphAllocsBranchRaces(t *testing.T) {
	h := buildHarnessRig(t)
	const sol = "solutions/day074/graph_alloc.cu"
	src := string(mustRead(t, filepath.Join("..", sol)))
	for name, swap := range map[string][2]string{
		"a on s2": {"CHECK(cudaMallocAsync(&a, bytes, s));", "CHECK(cudaMallocAsync(&a, bytes, s2));"},
		"b on s":  {"CHECK(cudaMallocAsync(&b, bytes, s2));", "CHECK(cudaMallocAsync(&b, bytes, s));"},
	} {
		if strings.Count(src, swap[0]) != 1 {
			t.Fatalf("%s: the solution no longer has %q once", name, swap[0])
		}
		prog := h.build(t, "branch-"+strings.ReplaceAll(name, " ", "-"), sol, sol, []byte(strings.Replace(src, swap[0], swap[1], 1)))
		s, out := h.recordEnv(t, prog, nil, "1", "1")
		if s.UnorderedUses == 0 {
			t.Errorf("%s: unordered_uses 0, want the use on the other branch counted (use race %q)\n%s", name, bytes.TrimRight(s.UseRace[:], "\x00"), out)
		}
	}
}
