package exercise

import (
	"strings"
	"testing"

	"github.com/cudalessons/lessons/checker"
)

// TestNoOwnDriverCalls: a run whose record says it made no driver
// allocation of its own may reach the driver's entry points only through
// the runtime, once a call at most; a program that allocates through
// cuMemAlloc and leaves it out of its record counts more there, and the
// witness says so.
func TestNoOwnDriverCalls(t *testing.T) {
	counts := map[string]uint64{"malloc_calls": 2, "free_calls": 2, "malloc_async_calls": 4}
	honest := map[string]uint64{"malloc_calls": 2, "free_calls": 2, "malloc_async_calls": 4, "cuMemAlloc": 2, "cuMemFree": 2, "cuMemAllocAsync": 4}
	cs := noOwnDriverCalls(honest, counts)
	if len(cs) != 3 {
		t.Fatalf("claims %+v", cs)
	}
	rec := &checker.Stats{}
	for _, n := range []string{"malloc_calls", "free_calls", "malloc_async_calls"} {
		if err := rec.Set(n, counts[n]); err != nil {
			t.Fatal(err)
		}
	}
	if m, got := checker.WitnessCheck(rec, nil, &checker.WitnessView{Counts: counts, Claims: cs}, 0); m != "" {
		t.Errorf("an honest run: %s (%s)", m, got)
	}
	// Three more allocations through cuMemAlloc that the record hides.
	forged := map[string]uint64{"malloc_calls": 2, "free_calls": 2, "malloc_async_calls": 4, "cuMemAlloc": 5, "cuMemFree": 2, "cuMemAllocAsync": 4}
	m, _ := checker.WitnessCheck(rec, nil, &checker.WitnessView{Counts: counts, Claims: noOwnDriverCalls(forged, counts)}, 0)
	if !strings.Contains(m, "cuMemAlloc+cuMemAllocPitch+cuArrayCreate: the kernel counted 5 calls of the driver's entry points, more than the runtime's 2") {
		t.Errorf("hidden driver allocations: %q", m)
	}
	// A runtime that does not go through the driver's entry points: none
	// counted there, nothing to bound.
	if cs := noOwnDriverCalls(counts, counts); len(cs) != 0 {
		t.Errorf("no driver calls counted, claims %+v", cs)
	}
}
