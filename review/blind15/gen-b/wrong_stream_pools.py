WRONG = [
 dict(slug="places-summed-over-lanes-that-do-not-ask",
  where="the program's own output: in every warp with a lane that asks for nothing (most of the work rounds), places and the run's length include that lane's stale or uninitialised shared slot: runs with gaps or overlaps, blocks out of lane order, pool use off; the overflow round, where whole warps ask, is right",
  mistake="the loop that sums the staged sizes runs over all 32 slots of the warp's row, without skipping the lanes outside the asking mask",
  why="only the asking lanes wrote their slots in this call; the others hold what an earlier kernel or call left (shared memory is not cleared), so each lane's place and the run add sizes nobody asked for",
  source="own",
  edits=[("        if (!(mask >> l & 1u)) continue;\n","")]),
 dict(slug="run-start-read-without-a-second-syncwarp",
  where="a race: lanes other than the leader may read the start slot before the leader has written it (what an earlier call left there): blocks overlapping or refused now and then, more on some GPUs and compilers than others",
  mistake="after the leader moves the offset and writes the run's start into shared memory, the other lanes read it with no __syncwarp(mask) in between (\"a warp runs in lockstep\")",
  why="since Volta the lanes of a warp are scheduled independently; without the barrier nothing makes the leader's store visible, or even done, before the others load the slot",
  source="ORNL/HeCBench#221",
  edits=[("""        start[warp][leader] = got;
    }
    __syncwarp(mask);""","""        start[warp][leader] = got;
    }""")]),
 dict(slug="counter-header-sized-one-word-a-pool",
  where="the program's own output: the header holds 32 bytes, so pool 0's slice starts inside the counters of pools 1 to 3 (at 32 bytes, not 256): pool 0's first blocks and those counters overwrite each other (pool use and high-water marks wrong, blocks not holding their sums)",
  mistake="init sizes the counters' header as n * sizeof(unsigned long long), one word a pool, instead of n * sizeof(PoolCounters) rounded up",
  why="each pool's counters are three words (offset, high, failed), 96 bytes for four pools; a 32-byte header lets pool 0's slice start in the middle of them",
  source="own",
  edits=[("        header_ = (n * sizeof(PoolCounters) + 255) / 256 * 256;","        header_ = n * sizeof(unsigned long long);")]),
 dict(slug="exact-fit-refused",
  where="the program's own output, the overflow round: the run that would fill a pool exactly is refused, so 32 more requests a pool fail (4224 of 8192, not 4096), the offset stops 16 KiB short and no high-water mark is at capacity; the work rounds never come near the end",
  mistake="the leader's room test is cur + run < p.capacity (strict), not <=",
  why="a run that ends exactly at the capacity fits; 1024 blocks of 512 bytes fill a 512 KiB slice exactly, and the last warp's run is the one refused",
  source="own",
  edits=[("        while (cur + run <= p.capacity) {","        while (cur + run < p.capacity) {")]),
]
