package kernels_test

import (
	"strings"
	"testing"
)

// A cudaEventQuery that answers done tells the host that the work queued
// before that event's record is over, and nothing more: a block pool that
// hands out a block of one cudaMalloc when another block's event is done
// (one event standing for many) has the new stream's write race the old
// stream's, and one that asks the block's own event does not.
func TestLibraryOrdersAfterAnEventTheHostSawDone(t *testing.T) {
	lib := buildStub(t, "query.c")
	got, _ := lib.run(t)
	s := got.Stats
	if s.UnorderedUses != 1 {
		t.Fatalf("unordered_uses %d, want 1 (the write after the other block's event, not the one after its own)", s.UnorderedUses)
	}
	if race := s.RaceNote("unordered_uses"); !strings.Contains(race, "cudaMemsetAsync on stream") || !strings.Contains(race, "may still be using") {
		t.Errorf("use_race %q: want the write that raced, and the one it raced", race)
	}
}
