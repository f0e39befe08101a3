ID = "heap-vs-pool"
EXT = "cu"
STUDENT = "exercises/day086/heap_vs_pool.cu"
DESIGN = ("build_lists first runs a BLOCK-WIDE SCAN (Hillis-Steele over a shared array of the 256 threads' 16-byte-rounded sizes, "
          "threads past n counting 0): every list up to the first that does not fit in the slice is placed at its scanned offset with "
          "NO ATOMIC at all, the block's shared offset is then set where that run ends (atomicMax by the run's threads, behind a "
          "barrier), and only the lists after the run go through take(), a compare-and-swap loop on the shared offset that tests the "
          "fit before every try (a smaller list may still fit), else device malloc; slices of sliceBytes rounded up to a multiple of "
          "768 bytes (three 256-byte lines, at most 767 bytes more); the arena as its base, the stride and its length; in_arena by "
          "first <= x and x - first < length on the integer address; the heap sized from this design's own stride (twice what can "
          "spill: each block's lists plus one largest list past the stride, and 6 MiB) before the buffer is queued; free_arena a "
          "cudaFreeAsync on s; give_back frees only what in_arena disowns")
WRONGS = [
    dict(slug="scan-step-without-the-barrier-between-read-and-write",
         shows="a race (default output by timing, and the record): in a scan step a thread may read a neighbour's slot after that neighbour's thread, in another warp, has already added this step's value: prefixes come out too large (gaps, lists sent to the heap while their slice had room, lists not where the run should put them, now and then overlapping); racecheck sees a shared read and write of the same step unordered",
         mistake="the Hillis-Steele loop keeps one __syncthreads per step, after the add, and drops the one between reading scan[t - d] and writing scan[t]",
         why="each step reads the slot d places down and writes its own: without a barrier between the read and the write, a warp that has already written its slots for this step feeds a later-read value into another warp's read; an in-place scan needs the barrier on both sides of the write (or two buffers)",
         source="related: wykvictor/cs344-cuda-udacity#1 (an in-place Hillis-Steele scan whose threads read slots other threads of the same step had already written)",
         edits=[("        const unsigned long long below = threadIdx.x >= d ? scan[threadIdx.x - d] : 0;\n        __syncthreads();\n        scan[threadIdx.x] += below;\n",
                 "        const unsigned long long below = threadIdx.x >= d ? scan[threadIdx.x - d] : 0;\n        scan[threadIdx.x] += below;\n")]),
    dict(slug="run-end-published-without-a-barrier",
         shows="a race (default output by timing, and the record): a thread past the run may read the shared offset before the run's threads have raised it and take a list that overlaps the run: lists not holding what they should, rounds summed wrong, now and then; racecheck: the shared offset read and written by different warps unordered",
         mistake="the __syncthreads after the run's atomicMax on the shared offset is left out ('atomicMax is atomic, the others will see it')",
         why="atomicity makes each update whole but orders nothing: the lists past the run start their compare-and-swap from whatever the offset holds when they read it, which may still be 0 or an earlier run member's end; the block must wait until every run thread has set the offset before any thread takes from it",
         source="related: ORNL/HeCBench#255 (a shared value read by other warps before the barrier that would order it after its writes)",
         edits=[("    if (inRun) atomicMax(&used, end);\n    __syncthreads();\n", "    if (inRun) atomicMax(&used, end);\n")]),
    dict(slug="heap-lists-never-freed",
         shows="other arguments mostly (more rounds: heap_vs_pool 100000 10): each round's heap lists stay allocated, the heap (sized for one round's spill, twice, and 6 MiB) fills and later rounds get lists without memory; with the default four rounds maybe only the record's leak; every list in the slices unaffected",
         mistake="give_back does nothing for any list ('release_lists clears the pointers; the next launch starts over'), the device free left out",
         why="only the slices start again at the next launch; a list from malloc is the heap's until free gives it back, and the heap was sized for what one round spills, not for every round's",
         source="own",
         edits=[("    if (list != nullptr && !in_arena(a, list)) free(list);\n", "    (void)a;\n    (void)list;\n")]),
    dict(slug="run-end-never-set-as-the-blocks-offset",
         shows="the program's own output: in every block with lists past its run, those lists start from offset 0 over the run's own lists: lists not holding what they should, rounds summed wrong",
         mistake="the run's threads never write where the run ends into the shared offset (the atomicMax line left out): the scan places them, and take() starts from 0",
         why="take() hands out bytes from the shared offset: the run's lists are placed by the scan without moving it, so unless the run's end is written there the lists after the run are cut from the slice's start, on top of the run",
         source="own",
         edits=[("    if (inRun) atomicMax(&used, end);\n", "")]),
]
