package checker

import (
	"strings"
	"testing"
)

func TestWitnessCheck(t *testing.T) {
	own := &Stats{MallocAsyncCalls: 100, FreeAsyncCalls: 100, KernelLaunches: 3}
	child := &Stats{MallocAsyncCalls: 1}
	for _, tc := range []struct {
		name     string
		children *Stats
		counts   map[string]uint64
		failed   int    // calls the run's spec made fail
		want     string // in the mismatch; "" none
	}{
		{"the same", nil, map[string]uint64{"malloc_async_calls": 100, "free_async_calls": 100}, 0, ""},
		{"a child's calls are the run's", child, map[string]uint64{"malloc_async_calls": 101}, 0, ""},
		{"raised figures", nil, map[string]uint64{"malloc_async_calls": 0, "free_async_calls": 100}, 0, "malloc_async_calls: the record says 100, the kernel counted 0"},
		{"calls around the library", nil, map[string]uint64{"kernel_launches": 5}, 0, "kernel_launches: the record says 3, the kernel counted 5"},
		// A call the spec made fail is counted by the library, never made.
		{"a call made to fail", nil, map[string]uint64{"malloc_async_calls": 99, "free_async_calls": 100}, 1, ""},
		{"more than the spec made fail", nil, map[string]uint64{"malloc_async_calls": 98, "free_async_calls": 99}, 2, "the record says 100, the kernel counted 98"},
		{"fewer recorded is never a failure made", nil, map[string]uint64{"kernel_launches": 4}, 1, "kernel_launches: the record says 3, the kernel counted 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Run{Stats: own, Children: tc.children, Witness: &WitnessView{Counts: tc.counts}}
			res := judgeWitness(r, tc.failed)
			if (tc.want == "") != res.Pass || !strings.Contains(res.Got, tc.want) {
				t.Errorf("%+v, want %q", res, tc.want)
			}
			if !res.Pass && (res.Review == "" || !strings.Contains(res.Got, "does not match what the kernel saw")) {
				t.Errorf("a mismatch is marked for review and says so: %+v", res)
			}
		})
	}
	// An untrusted record fails already; the witness adds nothing.
	s := &Spec{}
	if rs := s.Judge(&Run{Untrusted: "forged", Witness: &WitnessView{Counts: map[string]uint64{"malloc_calls": 1}}}); len(rs) != 1 {
		t.Errorf("%+v", rs)
	}
}
