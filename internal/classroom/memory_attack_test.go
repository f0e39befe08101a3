package classroom

import (
	"strings"
	"testing"
)

// Door 7 (issue 38): without a cgroup, RLIMIT_DATA is a run's only
// memory limit, and it counts no shared memory (512 MiB touched under 64
// MiB). A class whose cells have no time limit would let a cell hold it
// for as long as the class runs: refused, saying why.
func TestAttackUntimedClassWithoutMemoryBound(t *testing.T) {
	cfg := testConfig(t, &fakeTools{}, newClock().now)
	cfg.Timeout, cfg.NoMemoryBound = 0, "no cgroup v2 here"
	if _, err := Open(cfg); err == nil || !strings.Contains(err.Error(), "no time limit needs a memory limit") {
		t.Fatalf("an untimed class without a memory bound: %v", err)
	}
	cfg = testConfig(t, &fakeTools{}, newClock().now)
	cfg.NoMemoryBound = "no cgroup v2 here" // timed: its cells end
	c, err := Open(cfg)
	if err != nil {
		t.Fatalf("a timed class without a memory bound: %v", err)
	}
	c.Close()
}
