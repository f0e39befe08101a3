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

// TestHostWaitClaims: the runtime's waits are bounded by the record's
// statistics, the program's and its children's together; the driver's
// too unless LESSONS_WITNESS_DRIVER_WAITS=shown; a settled-queries run
// bounds only the device's wait (the library's own reach the others).
func TestHostWaitClaims(t *testing.T) {
	all := map[string]uint64{"cudaDeviceSynchronize": 1, "cudaStreamSynchronize": 3, "cudaEventSynchronize": 0,
		"cuCtxSynchronize": 1, "cuStreamSynchronize": 4}
	rec := &checker.Received{Stats: &checker.Stats{DeviceSyncs: 1, StreamSyncs: 2}, Children: &checker.Stats{StreamSyncs: 1}}
	names := func(cs []checker.Claim) (out []string) {
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	t.Setenv("LESSONS_WITNESS_DRIVER_WAITS", "shown")
	cs := hostWaitClaims(all, rec, false, nil)
	if got, want := strings.Join(names(cs), "; "), "calls of the runtime's cudaDeviceSynchronize within the record's device_syncs; calls of the runtime's cudaStreamSynchronize within the record's stream_syncs"; got != want {
		t.Fatalf("claims without the driver's bound:\n got %s\nwant %s", got, want)
	}
	if cs[1].Record != 3 || cs[1].Most != 3 {
		t.Errorf("stream waits: counted %d, the record's %d (the program's 2 and its children's 1)", cs[1].Record, cs[1].Most)
	}
	if got := names(hostWaitClaims(all, rec, true, nil)); len(got) != 1 || !strings.Contains(got[0], "cudaDeviceSynchronize") {
		t.Errorf("a settled-queries run: %v", got)
	}
	t.Setenv("LESSONS_WITNESS_DRIVER_WAITS", "")
	cs = hostWaitClaims(all, rec, false, nil)
	if len(cs) != 4 || cs[3].Name != "calls of the driver's cuStreamSynchronize within the record's stream_syncs" {
		t.Fatalf("claims with the driver's bound: %v", names(cs))
	}
	if want := "cuStreamSynchronize: the kernel counted %d calls of the driver's function, more than the record's %d (stream_syncs): a host wait made around the statistics library"; cs[3].Over != want {
		t.Errorf("the driver's wait over the record:\n got %s\nwant %s", cs[3].Over, want)
	}
	if want := "cudaStreamSynchronize: the kernel counted %d calls of the runtime's entry point, more than the record's %d (stream_syncs): a host wait made around the statistics library"; cs[1].Over != want {
		t.Errorf("the runtime's wait over the record:\n got %s\nwant %s", cs[1].Over, want)
	}
}

// TestWitnessVMMClaimsCountAttempts: the driver's retains and imports
// are bounded added up by vmm_retain_attempts, every call the library
// saw, made or refused (round 25). An honest program whose retains the
// driver refused (no reference taken, vmm_retain_calls 0) passes; one
// that retains or imports at the driver's own entries around the hooks
// fails, whichever of the two it calls there, however many of the other
// it calls through them.
func TestWitnessVMMClaimsCountAttempts(t *testing.T) {
	t.Setenv("LESSONS_WITNESS_DRIVER_REFS", "") // the two bounded by default (refProbes)
	over := func(cs []checker.Claim) []string {
		var out []string
		for _, c := range cs {
			if c.Record > c.Most {
				out = append(out, c.Name)
			}
		}
		return out
	}
	refused := &checker.Received{Stats: &checker.Stats{VMMRetainAttempts: 3, VMMRetainCalls: 0}}
	all := map[string]uint64{"cuMemRetainAllocationHandle": 3}
	if got := over(vmmClaims(all, refused, nil)); len(got) != 0 {
		t.Errorf("three retains the driver refused, each through the hook: %v", got)
	}
	if cs := vmmClaims(all, refused, nil); len(cs) != 1 || !strings.Contains(cs[0].Name, "cuMemRetainAllocationHandle and cuMemImportFromShareableHandle") || !strings.Contains(cs[0].Name, "vmm_retain_attempts") {
		t.Errorf("claims %+v, want one of the two by vmm_retain_attempts", cs)
	}
	// 50 retains through the hooks, 50 imports around them.
	mixed := &checker.Received{Stats: &checker.Stats{VMMRetainAttempts: 50, VMMRetainCalls: 50}}
	all = map[string]uint64{"cuMemRetainAllocationHandle": 50, "cuMemImportFromShareableHandle": 50}
	cs := vmmClaims(all, mixed, nil)
	if got := over(cs); len(got) != 1 {
		t.Fatalf("imports around the hooks beside retains through them: over %v of %+v", got, cs)
	}
	for _, c := range cs {
		if c.Record > c.Most && (c.Record != 100 || c.Most != 50 || !strings.Contains(c.Over, "virtual memory managed around the statistics library")) {
			t.Errorf("claim %+v, want 100 counted against 50", c)
		}
	}
	// A child's record counts too.
	child := &checker.Received{Stats: &checker.Stats{}, Children: &checker.Stats{VMMRetainAttempts: 100}}
	if got := over(vmmClaims(all, child, nil)); len(got) != 0 {
		t.Errorf("the calls in a child's record: over %v", got)
	}
	// The seven keep one probe each.
	seven := vmmClaims(map[string]uint64{"cuMemCreate": 2}, &checker.Received{Stats: &checker.Stats{VMMCreateCalls: 1}}, nil)
	if len(seven) != 1 || seven[0].Name != "calls of the driver's cuMemCreate within the record's vmm_create_calls" || seven[0].Record != 2 || seven[0].Most != 1 {
		t.Errorf("claims %+v", seven)
	}
}

// A call the run's spec made fail is counted by the record and never made
// (round 26): the bound leaves it out where every call the spec fails is
// of the bounded functions, and nowhere else.
func TestVMMClaimsLeaveOutCallsMadeToFail(t *testing.T) {
	// Two maps through the hook, the second made to fail, one around it.
	rec := &checker.Received{Stats: &checker.Stats{VMMMapCalls: 2, InjectedFailures: 1}}
	all := map[string]uint64{"cuMemMap": 2}
	for _, tc := range []struct {
		fails []string
		most  uint64
	}{
		{nil, 2},
		{[]string{"cuMemMap:2"}, 1},
		{[]string{"cuMemSetAccess:2"}, 2},               // made to fail elsewhere
		{[]string{"cuMemMap:2", "cuMemSetAccess:2"}, 2}, // whose, the record does not say
	} {
		cs := vmmClaims(all, rec, tc.fails)
		if len(cs) != 1 || cs[0].Most != tc.most || cs[0].Record != 2 {
			t.Errorf("fails %v: claims %+v, want 2 counted against at most %d", tc.fails, cs, tc.most)
		}
	}
	// An honest run of it: one map entered, one made to fail.
	if cs := vmmClaims(map[string]uint64{"cuMemMap": 1}, rec, []string{"cuMemMap:2"}); len(cs) != 1 || cs[0].Record > cs[0].Most {
		t.Errorf("an honest run with its second map made to fail: %+v", cs)
	}
	// A wait made to fail, the same way.
	waits := &checker.Received{Stats: &checker.Stats{StreamSyncs: 2, InjectedFailures: 1}}
	for _, c := range hostWaitClaims(map[string]uint64{"cudaStreamSynchronize": 2}, waits, false, []string{"cudaStreamSynchronize:1"}) {
		if c.Most != 1 {
			t.Errorf("a stream wait made to fail: %+v, want at most 1", c)
		}
	}
}
