package kernels_test

import (
	"testing"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/timeline"
)

// The statistics library itself, built with nvcc as lessons builds it,
// preloaded into a program that runs over a stand-in CUDA runtime
// (testdata/stub): with LESSONS_STATS_TRACE its trace comes over the
// signed channel and reads back as what the program did; without, none
// comes. Skips where there is no nvcc or C compiler (no GPU is needed).
func TestLibraryTracesARun(t *testing.T) {
	lib := buildStub(t, "prog.c")
	run := func(trace bool) *checker.Received {
		var env []string
		if trace {
			env = append(env, "LESSONS_STATS_TRACE=1")
		}
		got, _ := lib.run(t, env...)
		return got
	}
	if got := run(false); got.Trace != nil {
		t.Errorf("a run without LESSONS_STATS_TRACE sent %d bytes of trace", len(got.Trace))
	}
	got := run(true)
	tl, err := timeline.Parse(got.Trace)
	if err != nil {
		t.Fatal(err)
	}
	c := tl.Count()
	if c.Streams != 2 || c.Allocs != 4 || c.Frees != 3 || c.Leaks != 1 || c.Edges != 3 || c.HostWaits != 4 || c.Copies != 8 {
		t.Errorf("the trace counts %+v", c)
	}
	kinds := map[int]int{}
	for _, f := range tl.Findings {
		kinds[f.Kind]++
		if f.At < 0 || (f.With < 0 && f.Kind != timeline.FindLeak) {
			t.Errorf("finding %d is not tied to its events: %+v", f.Kind, f)
		}
	}
	if kinds[timeline.FindUse] != 1 || kinds[timeline.FindFree] != 1 || kinds[timeline.FindLeak] != 1 {
		t.Errorf("findings %v, want a use, a free and a leak", kinds)
	}
	if got.Stats.UnorderedUses != 1 || got.Stats.UnorderedFrees != 1 {
		t.Errorf("the record itself: %d unordered uses, %d unordered frees", got.Stats.UnorderedUses, got.Stats.UnorderedFrees)
	}
}
