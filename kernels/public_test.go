package kernels_test

import (
	"path/filepath"
	"regexp"
	"strconv"
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
// two devices, which the stand-in does not have; heap-vs-pool's heap
// lists never freed, which only the kernels show; pool-reuse's threshold,
// which the stand-in's pool always answers 0; ipc-pool's fork after CUDA
// started, which the stand-in does not refuse) are for the GPU's lessons
// verify --wrong alone.
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
		// Issue 36, third pass (the MANIFEST's third table).
		{
			main: "solutions/day068/block_pool.cu", sol: "solutions/day068/block_pool.cu",
			patch: "solutions/day068/wrong/block-pool/public_give_back_recorded_without_its_stream.patch",
			what:  "unordered_uses", shown: func(s *checker.Stats, _ string) uint64 { return s.UnorderedUses },
		},
		{
			main: "solutions/day068/block_pool.cu", sol: "solutions/day068/block_pool.cu",
			patch: "solutions/day068/wrong/block-pool/public_blocks_aligned_to_the_widest_type.patch",
			what:  `"blocks aligned to 256 bytes: no"`, shown: func(_ *checker.Stats, out string) uint64 {
				return uint64(strings.Count(out, "blocks aligned to 256 bytes: no"))
			},
		},
		{
			main: "solutions/day069/pool_reuse.cu", sol: "solutions/day069/pool_reuse.cu",
			patch: "solutions/day069/wrong/pool-reuse/public_settings_on_the_default_pool.patch",
			what:  "pool_settings_unused", shown: func(s *checker.Stats, _ string) uint64 { return s.PoolSettingsUnused },
		},
		{
			main: "solutions/day071/strict_pool.cu", sol: "solutions/day071/strict_pool.cu",
			patch: "solutions/day071/wrong/strict-pool/public_pool_made_the_devices_current.patch",
			what:  "device_pool_sets", shown: func(s *checker.Stats, _ string) uint64 { return s.DevicePoolSets },
		},
		{
			main: "solutions/day070/cross_stream.cu", sol: "solutions/day070/cross_stream.cu",
			patch: "solutions/day070/wrong/cross-stream/public_loaded_recorded_on_the_null_stream.patch",
			// The record on stream 0 is what it shows.
			what: "default_stream_ops", shown: func(s *checker.Stats, _ string) uint64 { return s.DefaultStreamOps },
		},
		{
			main: "solutions/day074/graph_alloc.cu", sol: "solutions/day074/graph_alloc.cu",
			patch: "solutions/day074/wrong/graph-alloc/public_last_out_left_to_exec_destroy.patch",
			what:  "leaked_allocs", shown: func(s *checker.Stats, _ string) uint64 { return s.LeakedAllocs },
		},
		{
			main: "solutions/day074/graph_alloc.cu", sol: "solutions/day074/graph_alloc.cu",
			patch: "solutions/day074/wrong/graph-alloc/public_trim_before_the_free_is_done.patch",
			what:  "trims_unwaited", shown: func(s *checker.Stats, _ string) uint64 { return s.TrimsUnwaited },
		},
		{
			main: "exercises/day088/bench.cu", sol: "solutions/day088/stream_ordered_pool.h",
			patch: "solutions/day088/wrong/stream-ordered-pool/public_give_back_recorded_on_stream_zero.patch",
			what:  "unordered_uses", shown: func(s *checker.Stats, _ string) uint64 { return s.UnorderedUses },
		},
		// Issue 36, fourth pass.
		{
			main: "solutions/day087/stream_pools.cu", sol: "solutions/day087/stream_pools.cu",
			patch: "solutions/day087/wrong/stream-pools/public_counters_cleared_with_cudaMemset.patch",
			what:  "sync_memsets", shown: func(s *checker.Stats, _ string) uint64 { return s.SyncMemsets },
		},
		{
			main: "solutions/day087/stream_pools.cu", sol: "solutions/day087/stream_pools.cu",
			patch: "solutions/day087/wrong/stream-pools/public_reset_memset_stream_left_out.patch",
			what:  "default_stream_ops", shown: func(s *checker.Stats, _ string) uint64 { return s.DefaultStreamOps },
		},
		{
			main: "solutions/day068/block_pool.cu", sol: "solutions/day068/block_pool.cu",
			patch: "solutions/day068/wrong/block-pool/public_completion_taken_as_given.patch",
			what:  "unordered_uses", shown: func(s *checker.Stats, _ string) uint64 { return s.UnorderedUses },
		},
		{
			main: "exercises/day076/pool_resource.cu", sol: "solutions/day076/pool_resource.h",
			patch: "solutions/day076/wrong/pool-resource/public_blocks_aligned_to_16_bytes.patch",
			what:  "misaligned blocks", shown: func(_ *checker.Stats, out string) uint64 {
				m := regexp.MustCompile(`blocks: [0-9]+ handed out, ([0-9]+) misaligned`).FindStringSubmatch(out)
				if m == nil {
					return 0
				}
				n, _ := strconv.ParseUint(m[1], 10, 64)
				return n
			},
		},
		{
			main: "solutions/day086/heap_vs_pool.cu", sol: "solutions/day086/heap_vs_pool.cu",
			patch: "solutions/day086/wrong/heap-vs-pool/public_default_heap_null_written.patch",
			// The default run's spill fits in 8 MiB; the run of nearly
			// every list from the heap does not.
			args: []string{"100000", "4", "1"},
			what: `"heap limit does not fit"`, shown: func(_ *checker.Stats, out string) uint64 {
				return uint64(strings.Count(out, "heap limit does not fit"))
			},
		},
		{
			main: "solutions/day072/growable.cu", sol: "solutions/day072/growable.cu",
			patch: "solutions/day072/wrong/vmm-growable/public_creation_reference_never_released.patch",
			flags: []string{"-lcuda"},
			what:  "vmm_handle_refs - vmm_release_calls", shown: func(s *checker.Stats, _ string) uint64 {
				if refs := s.VMMCreateCalls + s.VMMRetainCalls; refs > s.VMMReleaseCalls {
					return refs - s.VMMReleaseCalls
				}
				return 0
			},
		},
		{
			main: "exercises/day088/bench.cu", sol: "solutions/day088/stream_ordered_pool.h",
			patch: "solutions/day088/wrong/stream-ordered-pool/public_listed_events_left_at_destroy.patch",
			what:  "leaked_events", shown: func(s *checker.Stats, _ string) uint64 { return s.LeakedEvents },
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
