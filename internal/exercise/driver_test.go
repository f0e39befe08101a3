package exercise

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/gpu"
)

// forgedStats is a record claiming a 16 MiB pool and 4 kernel launches:
// what a program that found the run's key could send (fakelib's "pool").
func forgedStats() *checker.Stats {
	s := &checker.Stats{MallocAsyncCalls: 4, MallocAsyncBytes: 16 << 20, FreeAsyncCalls: 4, PeakLiveBytes: 16 << 20, LaunchesInspected: 4, PoolCount: 1, Exited: 1}
	s.Pools[0] = checker.Pool{Handle: 1, ReservedHigh: 16 << 20, UsedHigh: 16 << 20}
	return s
}

// forger is a program that sends that record, signed as the library
// would, and prints.
func forger(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("LESSONS_TEST_BIN", self)
	return "// fake: \"$LESSONS_TEST_BIN\" fakelib start pool end; echo done\n"
}

const poolSpec = "[[check]]\nexit = 0\n[[check]]\nstat = \"pool_reserved_high\"\nat_least = 16777216\n"

// looked is the driver's sight of a forger that prints and leaves at once:
// looked at as it started and as it ended, a few ms apart, never listed.
var looked = gpu.Sight{Polls: 2, MaxGap: 4 * time.Millisecond, SamePids: true}

func TestForgedRecordTheDriverNeverSawFails(t *testing.T) {
	tk := toolkit(t)
	fake := &gpu.Fake{Default: looked}
	tk.Driver = fake
	prog := forger(t)
	v, err := Check(context.Background(), tk, Plain{}, job(t, spec(t, poolSpec), "x.cu", prog), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(fake.Watched) != 1 || fake.Watched[0] <= 0 {
		t.Fatalf("the run was not watched: %v", fake.Watched)
	}
	if v.Passed() {
		t.Fatalf("a record of a 16 MiB pool from a process the driver never saw passed: %+v", v.Results)
	}
	last := v.Results[len(v.Results)-1]
	if last.Name != checker.DriverCheckName || last.Pass || !strings.HasPrefix(last.Got, "statistics do not match what the driver saw: the record claims 16 MiB of device memory live at its peak, 16 MiB reserved by a pool") || last.Review == "" {
		t.Errorf("the cross-check's result: %+v", last)
	}
	for _, r := range v.Results[:len(v.Results)-1] {
		if !r.Pass {
			t.Errorf("the forged record should satisfy the spec itself: %+v", r)
		}
	}
}

func TestHonestRunTheDriverSawPasses(t *testing.T) {
	tk := toolkit(t)
	seen := looked
	seen.Seen, seen.MaxBytes = true, 540<<20
	tk.Driver = &gpu.Fake{Default: seen}
	prog := forger(t)
	v, err := Check(context.Background(), tk, Plain{}, job(t, spec(t, poolSpec), "x.cu", prog), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Passed() {
		t.Errorf("a run the driver saw failed: %+v", v.Results)
	}
}

func TestNoDriverNoCrossCheck(t *testing.T) {
	tk := toolkit(t)
	tk.Driver = &gpu.Fake{Off: true} // NVML missing: watches are nil
	v, err := Check(context.Background(), tk, Plain{}, job(t, spec(t, "[[check]]\nexit = 0\n"), "x.cu", "// fake: exit 0\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range v.Results {
		if r.Name == checker.DriverCheckName {
			t.Errorf("cross-checked without a driver: %+v", r)
		}
	}
}
