package kernels_test

import (
	"strings"
	"testing"
)

// A stream's later use of fewer bytes at the same address does not stand
// for its earlier, wider one: another stream ordered after the wider use
// (by an event) may use the bytes the later one leaves out. A use of
// bytes a stream cleared with no event between is still a race.
func TestLibraryFollowsUsesByTheirOwnBytes(t *testing.T) {
	lib := buildStub(t, "ranges.c")
	got, _ := lib.run(t)
	s := got.Stats
	if s.UnorderedUses != 1 {
		t.Fatalf("unordered_uses %d, want 1 (the third pool's reset alone): %s", s.UnorderedUses, s.RaceNote("unordered_uses"))
	}
	if note := s.RaceNote("unordered_uses"); !strings.Contains(note, "at offset 48") {
		t.Errorf("the race quoted is %q, want the one at offset 48", note)
	}
}

// max_unordered_streams follows the program's ordering, not the GPU's
// timing: three streams' memsets queued with nothing between them leave
// three streams free to run at once; the same memsets, each stream
// waiting by an event for the one before (and the first, in the second
// round, for the last), leave one.
func TestLibraryCountsStreamsLeftUnordered(t *testing.T) {
	lib := buildStub(t, "unordered.c")
	for _, tc := range []struct {
		env  []string
		want uint64
	}{
		{nil, 3},
		{[]string{"SERIAL=1"}, 1},
	} {
		got, _ := lib.run(t, tc.env...)
		if s := got.Stats; s.MaxUnorderedStreams != tc.want {
			t.Errorf("%v: max_unordered_streams %d, want %d", tc.env, s.MaxUnorderedStreams, tc.want)
		}
	}
}
