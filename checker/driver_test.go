package checker

import (
	"strings"
	"testing"
	"time"
)

// poolRecord is the record of a program whose pool reserved mib MiB.
func poolRecord(mib uint64) *Stats {
	s := &Stats{MallocAsyncCalls: 4, MallocAsyncBytes: mib << 20, PeakLiveBytes: mib << 20, LaunchesInspected: 4, PoolCount: 1}
	s.Pools[0] = Pool{Handle: 1, ReservedHigh: mib << 20, UsedHigh: mib << 20}
	return s
}

// close is a view of a run looked at closely enough to conclude.
func closeLook(seen bool, bytes uint64) *DriverView {
	return &DriverView{Pid: 4242, Seen: seen, MaxBytes: bytes, Polls: 20, MaxGap: 21 * time.Millisecond, SamePids: true}
}

func TestCrossCheckHonestRunsAreNeverFlagged(t *testing.T) {
	const ctx = 520 << 20 // an H100 context's own memory
	for _, tc := range []struct {
		name string
		s    *Stats
		d    *DriverView
	}{
		{"seen, with its pool", poolRecord(16), closeLook(true, ctx+16<<20)},
		{"seen without the pool: the peak fell between two looks", poolRecord(512), closeLook(true, ctx)},
		{"seen with no memory figure (a container)", poolRecord(16), closeLook(true, 0)},
		{"no CUDA at all, never seen", &Stats{}, closeLook(false, 0)},
		{"no record, never seen", nil, closeLook(false, 0)},
		{"only failed calls, never seen", &Stats{MallocCalls: 3, FailedAllocs: 3, KernelLaunches: 2}, closeLook(false, 0)},
		{"never seen, no look answered", poolRecord(16), &DriverView{Pid: 1, MaxGap: 10 * time.Millisecond, SamePids: true}},
		{"never seen, looks too far apart", poolRecord(16), &DriverView{Pid: 1, Polls: 40, MaxGap: 300 * time.Millisecond, SamePids: true}},
		{"never seen, the driver speaks of other pids", poolRecord(16), &DriverView{Pid: 1, Polls: 40, MaxGap: 20 * time.Millisecond}},
	} {
		impossible, note, got := CrossCheck(tc.s, tc.d)
		if impossible != "" || note != "" {
			t.Errorf("%s: flagged: %q, note %q", tc.name, impossible, note)
		}
		if got == "" {
			t.Errorf("%s: says nothing of what was compared", tc.name)
		}
	}
}

func TestCrossCheckFlagsAPoolTheDriverNeverSaw(t *testing.T) {
	impossible, _, _ := CrossCheck(poolRecord(16), closeLook(false, 0))
	for _, want := range []string{"statistics do not match what the driver saw", "16 MiB reserved by a pool", "4 kernel launches", "process 4242", "20 looks"} {
		if !strings.Contains(impossible, want) {
			t.Errorf("reason %q does not say %q", impossible, want)
		}
	}
	// A forger that prints and leaves at once was looked at only as it
	// started and ended: too short to have made a context at all.
	quick := &DriverView{Pid: 9, Polls: 2, MaxGap: 3 * time.Millisecond, SamePids: true}
	if impossible, _, _ := CrossCheck(poolRecord(16), quick); !strings.Contains(impossible, "2 looks over the run, at most 3ms apart") {
		t.Errorf("a 5 ms forger: %q", impossible)
	}
	vmm := &Stats{VMMCreateCalls: 1, VMMCreateBytes: 2 << 20}
	if impossible, _, _ := CrossCheck(vmm, closeLook(false, 0)); !strings.Contains(impossible, "2 MiB of physical memory created") {
		t.Errorf("a VMM record never seen: %q", impossible)
	}
}

func TestCrossCheckNotesMemoryTheRecordDoesNotAccountFor(t *testing.T) {
	_, note, _ := CrossCheck(&Stats{}, closeLook(true, 6<<30))
	if !strings.Contains(note, "6144 MiB") || !strings.Contains(note, "around the statistics library") {
		t.Errorf("note = %q", note)
	}
	if _, note, _ := CrossCheck(poolRecord(5<<10), closeLook(true, 6<<30)); note != "" {
		t.Errorf("a record that accounts for the memory got a note: %q", note)
	}
}

func TestJudgeCrossChecksOnlyAWatchedRun(t *testing.T) {
	spec := &Spec{Checks: []Check{{Contains: "ok"}}}
	r := &Run{Output: "ok", Stats: poolRecord(16)}
	if res := spec.Judge(r); len(res) != 1 {
		t.Fatalf("an unwatched run got %d results, want 1", len(res))
	}
	r.Driver = closeLook(false, 0)
	res := spec.Judge(r)
	if len(res) != 2 || res[1].Name != DriverCheckName || res[1].Pass || res[1].Review == "" || Passed(res) {
		t.Fatalf("results = %+v", res)
	}
	if spec.Score(res) != 0 {
		t.Error("a run whose record the driver contradicts earned points")
	}
	r.Driver = closeLook(true, 600<<20)
	if res := spec.Judge(r); !Passed(res) || res[1].Review != "" {
		t.Errorf("an honest run: %+v", res)
	}
}
