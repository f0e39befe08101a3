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
	// A record that says the program called the driver's allocation
	// functions itself: its twin is a range, and its claim is bounded.
	drv := &Stats{MallocCalls: 3}
	for _, tc := range []struct {
		name   string
		v      *WitnessView
		failed int
		want   string
	}{
		{"runtime and driver calls", &WitnessView{Counts: map[string]uint64{"malloc_calls": 1}, Driver: map[string]uint64{"malloc_calls": 2}, Claims: []Claim{{Name: "driver allocation calls", Record: 2, Most: 2}}}, 0, ""},
		// The runtime may reach the driver's entry point too.
		{"the runtime's calls counted twice", &WitnessView{Counts: map[string]uint64{"malloc_calls": 1}, Driver: map[string]uint64{"malloc_calls": 3}}, 0, ""},
		{"fewer than the runtime's", &WitnessView{Counts: map[string]uint64{"malloc_calls": 4}, Driver: map[string]uint64{"malloc_calls": 3}}, 0, "the record says 3, the kernel counted 4 of the runtime's and 3 of the driver's"},
		{"more than both", &WitnessView{Counts: map[string]uint64{"malloc_calls": 0}, Driver: map[string]uint64{"malloc_calls": 1}}, 0, "the record says 3, the kernel counted 0 of the runtime's and 1 of the driver's"},
		{"more than both by the calls made to fail", &WitnessView{Counts: map[string]uint64{"malloc_calls": 0}, Driver: map[string]uint64{"malloc_calls": 1}}, 2, ""},
		// A forger that claims a driver call, to be compared as a range,
		// and leaves others out: the driver counted more than the record.
		{"driver calls left out", &WitnessView{Counts: map[string]uint64{"malloc_calls": 1}, Driver: map[string]uint64{"malloc_calls": 5}, Claims: []Claim{{Name: "driver allocation calls", Record: 2, Most: 5}}}, 0, "the record says 3, the kernel counted 1 of the runtime's and 5 of the driver's"},
		// A forger that claims driver calls to be compared as a range.
		{"a claim of driver calls none made", &WitnessView{Counts: map[string]uint64{"malloc_calls": 0}, Driver: map[string]uint64{"malloc_calls": 0}, Claims: []Claim{{Name: "driver allocation calls", Record: 3, Most: 0}}}, 0, "driver allocation calls: the record says 3, the kernel counted 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mismatch, got := WitnessCheck(drv, nil, tc.v, tc.failed)
			if tc.want == "" && mismatch != "" || tc.want != "" && !strings.Contains(mismatch, tc.want) {
				t.Errorf("mismatch %q (got %q), want %q", mismatch, got, tc.want)
			}
		})
	}
	// What is counted and not compared is shown, passed or not.
	v := &WitnessView{Counts: map[string]uint64{"malloc_calls": 3}, Counted: map[string]uint64{"cuLaunchKernel": 7}}
	if m, got := WitnessCheck(drv, nil, v, 0); m != "" || !strings.Contains(got, "counted, not compared: cuLaunchKernel 7") {
		t.Errorf("%q %q", m, got)
	}
	v.Counts["malloc_calls"] = 2
	if m, got := WitnessCheck(drv, nil, v, 0); m == "" || !strings.Contains(got, "cuLaunchKernel 7") || strings.Contains(m, "cuLaunchKernel") {
		t.Errorf("%q %q", m, got)
	}
	// An untrusted record fails already; the witness adds nothing.
	s := &Spec{}
	if rs := s.Judge(&Run{Untrusted: "forged", Witness: &WitnessView{Counts: map[string]uint64{"malloc_calls": 1}}}); len(rs) != 1 {
		t.Errorf("%+v", rs)
	}
}

// TestWitnessSnapshot: a run stopped or crashed keeps its record's last
// snapshot, and the calls after it are counted by the kernel alone (57
// wrong answers of the course that crash or run out of time read as
// mismatches on two H200s: "malloc_host_calls: the record says 0, the
// kernel counted 1" in a run killed by SIGABRT). The record is compared
// one way there: never above the kernel's count.
func TestWitnessSnapshot(t *testing.T) {
	rec := &Stats{MallocCalls: 1, MallocAsyncCalls: 1}
	for _, tc := range []struct {
		name     string
		snapshot bool
		counts   map[string]uint64
		driver   map[string]uint64
		want     string
	}{
		{"calls after the last snapshot", true, map[string]uint64{"malloc_calls": 1, "malloc_async_calls": 24, "malloc_host_calls": 1}, nil, ""},
		{"the same run, ended by itself", false, map[string]uint64{"malloc_calls": 1, "malloc_async_calls": 24}, nil, "malloc_async_calls: the record says 1, the kernel counted 24"},
		{"a snapshot above the kernel's count", true, map[string]uint64{"malloc_calls": 0, "malloc_async_calls": 1}, nil, "malloc_calls: the record says 1, the kernel counted 0"},
		{"a driver twin below its range", true, map[string]uint64{"malloc_calls": 2}, map[string]uint64{"malloc_calls": 3}, ""},
		{"a driver twin above its range", true, map[string]uint64{"malloc_calls": 0}, map[string]uint64{"malloc_calls": 0}, "the record says 1, the kernel counted 0 of the runtime's and 0 of the driver's"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := &WitnessView{Counts: tc.counts, Driver: tc.driver, Snapshot: tc.snapshot}
			mismatch, got := WitnessCheck(rec, nil, v, 0)
			if tc.want == "" && mismatch != "" || tc.want != "" && !strings.Contains(mismatch, tc.want) {
				t.Errorf("mismatch %q (got %q), want %q", mismatch, got, tc.want)
			}
			if tc.snapshot && tc.want == "" && tc.driver == nil && !strings.Contains(got, "last snapshot") {
				t.Errorf("got %q does not say the record was a snapshot", got)
			}
		})
	}
}

// A function entered past its first instruction fails the run, marked
// for review, even where every figure of the record equals the count:
// the count of the entry never saw the calls.
func TestWitnessPast(t *testing.T) {
	r := &Run{Stats: &Stats{MallocCalls: 1}, Witness: &WitnessView{
		Counts: map[string]uint64{"malloc_calls": 1},
		Past:   []Past{{Name: "cuMemAlloc", Driver: true, Counts: "entered 1, left 1, work entered 1, work left 101"}},
	}}
	res := judgeWitness(r, 0)
	want := "a CUDA driver function was entered past its first instruction (cuMemAlloc: entered 1, left 1, work entered 1, work left 101)"
	if res.Pass || res.Review == "" || !strings.HasPrefix(res.Got, want) {
		t.Errorf("%+v, want a failure for review saying %q", res, want)
	}
	r.Witness.Counts["malloc_calls"] = 0
	r.Witness.Past[0].Driver = false
	if res := judgeWitness(r, 0); res.Pass || !strings.Contains(res.Got, "a CUDA runtime function was entered past") || !strings.Contains(res.Got, "; and the statistics record does not match what the kernel saw (malloc_calls") {
		t.Errorf("both named: %+v", res)
	}
}

// A fault caught by the program fails the run, marked for review.
func TestWitnessFaults(t *testing.T) {
	r := &Run{Stats: &Stats{MallocCalls: 1}, Witness: &WitnessView{Counts: map[string]uint64{"malloc_calls": 1}, Faults: 100}}
	res := judgeWitness(r, 0)
	if res.Pass || res.Review == "" || !strings.HasPrefix(res.Got, "the program caught 100 fault signals in handlers of its own") {
		t.Errorf("%+v", res)
	}
}
