WRONG = [
("scan-steps-by-lane-not-by-rank",
 "the program's own output: in every warp whose asking lanes have gaps (most warps of the work rounds) places are summed from the wrong lanes (lanes that do not ask, read through an undefined shuffle, or lanes counted twice): blocks overlapping, runs not in lane order; the overflow round, whose warps ask whole, is right",
 "the scan's step d shuffles from lane - d, as the textbook full-warp scan does, instead of from the asking lane d ranks below",
 "the asking lanes are not contiguous; lane - d may be a lane that does not ask (not in the mask: the shuffle's result is undefined) and the partial sums no longer follow the mask's set bits, so a lane's place is not the sum of the asking lanes below it",
 "own",
 [("        const int src = rank >= d ? lane_of_rank(mask, rank - d) : lane;\n        const unsigned long long v = __shfl_sync(mask, incl, src);\n        if (rank >= d) incl += v;",
   "        const int src = lane >= d ? lane - d : lane;\n        const unsigned long long v = __shfl_sync(mask, incl, src);\n        if (rank >= d) incl += v;")]),
("refused-run-left-in-the-offset",
 "the program's own output, the overflow round: offsets within capacity says no (each refused run leaves the offset past the capacity, and the pool's used() line too); later warps that would fit nothing anyway are refused, so the counts may still add up",
 "the last lane moves the offset with one atomicAdd of the run and, when the returned start plus the run passes the capacity, returns the refusal without taking the run back",
 "the contract says the offset only ever moves to a value within the capacity, so that it always says how much of the pool is in use; a refused run moved it anyway, so the pool reports holding more than its capacity and watchers see it past the end",
 "own",
 [('''        unsigned long long at = *(volatile unsigned long long*)&p.counters->offset;
        while (at + run <= p.capacity) {
            const unsigned long long seen = atomicCAS(&p.counters->offset, at, at + run);
            if (seen == at) {
                ok = 1;
                break;
            }
            at = seen;
        }
''', '''        const unsigned long long at = atomicAdd(&p.counters->offset, run);
        ok = at + run <= p.capacity;   // too big: refused (the run stays counted in the offset)
''')]),
("all-counters-zeroed-on-the-first-stream",
 "the record (a race): pools 1 to 3 reset and run on their streams with nothing ordering them after the memset of their counters on stream 0; now and then a pool's first round starts from the 0xff bytes the memory held (everything refused, marks wrong)",
 "init clears every pool's counters with one cudaMemsetAsync on streams[0]",
 "the contract says each pool's counters start at 0 in the order of its own stream; streams[1..3] are non-blocking and never wait for streams[0], so their first kernels may read the counters before they are cleared (the harness even leaves 0xff there)",
 "own",
 [("        for (int i = 0; i < n; i++) CHECK(cudaMemsetAsync(counters_ + i, 0, sizeof(PoolCounters), streams[i]));",
   "        CHECK(cudaMemsetAsync(counters_, 0, n * sizeof(PoolCounters), streams[0]));")]),
("high-water-mark-raised-to-the-run-start",
 "the program's own output: high-water marks short by the last run of the round (0 of 32 as expected), and none at capacity in the overflow round",
 "the mark is raised with atomicMax(&high, at), the run's start, instead of at + run, where the run ends",
 "the high-water mark is the most the offset has been; after a run is taken the offset is at + run, so a mark of the start misses the last run of every round",
 "own",
 [("            atomicMax(&p.counters->high, at + run);", "            atomicMax(&p.counters->high, at);")]),
]
