WRONG = [
    dict(slug="offset-moved-by-an-atomicadd-undone-on-overflow",
         shows="the program's own output, the overflow line: 'offsets within capacity: no' (the watching warps, or an asking thread's own look after its answer, see the offset past the capacity while a refused warp's add is not yet taken back); the counts, the marks at capacity and the work rounds right (every overflow run is 16 KiB and the pool holds exactly 32, so no warp is refused that would have fitted; with runs of mixed sizes such a warp could be)",
         mistake="rank 0 reserves the run with one atomicAdd of its length on the offset and, when the old offset plus the run passes the capacity, takes the run back with a second atomicAdd of minus the run, 'one atomic is faster than a compare-and-swap loop', instead of a compare-and-swap tried only while the run fits",
         why="the contract wants the offset never to pass the capacity, not even for a moment: between the two atomics it says the pool holds more than it does, a watcher can see it, and a warp whose run would fit can be refused because it reads the inflated value",
         source="related: linebender/vello#257 (a bump allocator on the GPU that moves its offset with atomicAdd and tests the room only afterwards)",
         edits=[("""        unsigned long long seen = *(volatile unsigned long long*)&c->offset;
        while (seen + run <= p.capacity) {
            const unsigned long long was = atomicCAS(&c->offset, seen, seen + run);
            if (was == seen) {
                start = seen;
                break;
            }
            seen = was;
        }""", """        const unsigned long long seen = atomicAdd(&c->offset, run);
        if (seen + run <= p.capacity) start = seen;
        else atomicAdd(&c->offset, 0ull - run);   // it did not fit: give the run back""")]),
    dict(slug="all-counters-cleared-on-the-first-stream",
         shows="a race, in the record: the counters of pools 1 to 3 are cleared by a memset on streams[0], which nothing orders before their first reset, kernel or copy on their own streams (uses of memory not ordered after the write that set it up); the printed lines right on an idle device, where the small memset has run long before the first work kernel's 50 us spin ends",
         mistake="init clears the trailer of all four pools' counters with one cudaMemsetAsync on streams[0], 'the counters are one array, one clear is enough', instead of each pool's counters on its own stream",
         why="every counter of pool i must start at 0 in the order of streams[i]; the streams are non-blocking and never wait for streams[0], so pool i's first work kernel may read its high mark and refusal count before the clear (0xff bytes left by the earlier allocation), and only luck of timing makes the figures right",
         source="own",
         edits=[("""        for (int i = 0; i < n; i++) CHECK(cudaMemsetAsync(trailer_ + i, 0, sizeof(PoolCounters), streams[i]));""",
                 """        CHECK(cudaMemsetAsync(trailer_, 0, (size_t)n * sizeof(PoolCounters), streams[0]));""")]),
    dict(slug="scan-by-lane-shuffles-not-group-ranks",
         shows="the program's own output: in every warp whose asking lanes have gaps (most warps of the work rounds) a lane adds the value of the lane d places below it, which may not ask at all (its register read undefined) or be fewer ranks below: places wrong, overlapping blocks > 0 and runs not in lane order, pool use wrong; the overflow round, whose warps ask whole, right",
         mistake="the scan's step reads the lower value with __shfl_up_sync(__activemask(), end, d), taking 'up by d' to mean d ranks below, where it means d lanes below; the group's shfl_up, which counts ranks, is replaced by the plain intrinsic",
         why="with gaps in the asking lanes the lane d below is not the asking lane d ranks below; __shfl_up_sync from a lane outside the mask is undefined, so each lane's sum of the sizes below it is wrong and blocks overlap or leave holes",
         source="related: NVIDIA/cub#154 (warp-scan shuffles whose member mask does not match the lanes that take part)",
         edits=[("""        const unsigned long long below = g.shfl_up(end, (int)d);""",
                 """        const unsigned long long below = __shfl_up_sync(__activemask(), end, d);""")]),
    dict(slug="run-refused-when-it-fills-the-pool-exactly",
         shows="the program's own output, the overflow round: a pool of 524288 bytes takes 32 runs of 16384 exactly, but the run that would end at the capacity is refused, so each pool serves 31: 'overflow: 4224 of 8192 requests failed, 4224 counted by the pools', high-water marks at capacity: 0 of 4; the work rounds, far below the capacity, right",
         mistake="the fit test is written seen + run < p.capacity, 'the end must stay inside the slice', instead of <=",
         why="a run whose end equals the capacity fits exactly (its last byte is the slice's last); the strict test refuses it, so a full pool is never reached and half of the overflow requests is not what fails",
         source="own",
         edits=[("""        while (seen + run <= p.capacity) {""", """        while (seen + run < p.capacity) {""")]),
]
