package kernels_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/checker"
)

// The wrong answers made from Q&A and forum threads (issue 36,
// review/public/MANIFEST.md) whose reasoned "caught by" is something the
// stand-in runtime shows: each patch, built and run with the statistics
// library preloaded, gives the statistic (or the harness's line) its
// MANIFEST row names, and the solution, built and run the same way, does
// not. The rest (python-handoff, stream-pools' kernel race, peer-pool's
// two devices, which the stand-in does not have) are for the GPU's
// lessons verify --wrong alone.
func TestPublicMistakesShowInTheRecord(t *testing.T) {
	h := buildHarnessRig(t)
	for i, tc := range []struct {
		main, sol, patch string
		args, flags      []string
		// shown is what the run shows of the mistake: 0 for the solution,
		// more for the patch.
		what  string
		shown func(s *checker.Stats, out string) uint64
	}{
		{
			main: "solutions/day069/async_pipeline.cu", sol: "solutions/day069/async_pipeline.cu",
			patch: "solutions/day069/wrong/async-pipeline/public_values_copied_back_blocking.patch",
			what:  "sync_memcpys", shown: func(s *checker.Stats, _ string) uint64 { return s.SyncMemcpys },
		},
		{
			main: "solutions/day069/async_pipeline.cu", sol: "solutions/day069/async_pipeline.cu",
			patch: "solutions/day069/wrong/async-pipeline/public_malloc_free_in_stream_loop.patch",
			what:  "malloc_calls", shown: func(s *checker.Stats, _ string) uint64 { return s.MallocCalls },
		},
		{
			main: "exercises/day076/pool_resource.cu", sol: "solutions/day076/pool_resource.h",
			patch: "solutions/day076/wrong/pool-resource/public_free_block_of_any_stream.patch",
			args:  []string{"8", "3"},
			what:  "unordered_uses", shown: func(s *checker.Stats, _ string) uint64 { return s.UnorderedUses },
		},
		{
			main: "solutions/day072/growable.cu", sol: "solutions/day072/growable.cu",
			patch: "solutions/day072/wrong/vmm-growable/public_old_range_freed_still_mapped.patch",
			// Grown past the first reservation: the buffer moves.
			args: []string{"100", "64", "300"}, flags: []string{"-lcuda"},
			what: "vmm_free_while_mapped", shown: func(s *checker.Stats, _ string) uint64 { return s.VMMFreeWhileMapped },
		},
		{
			// The run of "nearly every list from the heap": its lists
			// spill far past one thread's list and 4 MiB.
			main: "solutions/day086/heap_vs_pool.cu", sol: "solutions/day086/heap_vs_pool.cu",
			patch: "solutions/day086/wrong/heap-vs-pool/public_heap_limit_per_thread.patch",
			args:  []string{"100000", "4", "1"},
			what:  `"heap limit does not fit"`, shown: func(_ *checker.Stats, out string) uint64 {
				return uint64(strings.Count(out, "heap limit does not fit"))
			},
		},
	} {
		name := filepath.Base(tc.patch)
		for j, p := range []struct {
			name    string
			content []byte
			wrong   bool
		}{
			{"solution", mustRead(t, filepath.Join("..", tc.sol)), false},
			{name, patched(t, tc.sol, tc.patch), true},
		} {
			prog := h.build(t, "public-"+string(rune('a'+i))+string(rune('a'+j)), tc.main, tc.sol, p.content, tc.flags...)
			s, out := recordAnyExit(t, h, prog, tc.args...)
			got := tc.shown(s, out)
			t.Logf("%s %s: %s %d", tc.sol, p.name, tc.what, got)
			if (got > 0) != p.wrong {
				t.Errorf("%s %s %v: %s %d, want it nonzero: %v\n%s", tc.sol, p.name, tc.args, tc.what, got, p.wrong, out)
			}
		}
	}
}
