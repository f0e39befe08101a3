WRONG = [
    dict(slug="second-pool-located-on-device-0",
         shows="the program's own output: both pools are made on device 0, so cudaDeviceSetMemPool(1, pool[1]) is refused with an error (a pool of device 0 cannot be device 1's current pool) and the program stops in setup with that error, before its first line",
         mistake="the pool's properties name device 0 as its location, props.location.id = 0, 'the pools live where the data ends up', instead of the loop's device d",
         why="a pool's location decides whose memory it hands out and which device may make it current; pool[1] must be located on device 1 for device 1's weights, and cudaDeviceSetMemPool accepts only a pool of that device",
         source="own",
         edits=[("""        props.location.id = d;""", """        props.location.id = 0;""")]),
    dict(slug="reduce-wait-queued-before-the-produced-record",
         shows="the program's own output (race): each round's wait on produced is queued before that round's record (round 0: before any record, so no wait at all; later rounds: bound to the round before's record), so device 0's reduce reads the chunk before the 3 ms produce has written it (the chunk's memory holds the round before's numbers, or nothing): '0 of 5 rounds summed right' or nearly; the record: uses on s[0] not ordered after device 1's produce",
         mistake="one_round queues s[0]'s wait on produced first, with device 0 still current, 'set up the dependency before the work', and only then allocates, produces and records",
         why="cudaStreamWaitEvent binds to the record that exists when it is called; queued before this round's record, it waits for the round before's produce (or, in round 0, for nothing), not for the chunk device 0 is about to read",
         source="related: sgl-project/sglang#14214 (a wait issued before the record it is meant to follow: the record comes later than the wait)",
         edits=[("""void one_round(Two& t, int r, const int* w1, size_t n, unsigned long long* sum) {
    // Device 1 makes the chunk in device 0's memory, on its own stream.
    CHECK(cudaSetDevice(1));""", """void one_round(Two& t, int r, const int* w1, size_t n, unsigned long long* sum) {
    CHECK(cudaStreamWaitEvent(t.s[0], t.produced, 0));
    // Device 1 makes the chunk in device 0's memory, on its own stream.
    CHECK(cudaSetDevice(1));"""),
                ("""    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamWaitEvent(t.s[0], t.produced, 0));
    reduce<<<""", """    CHECK(cudaSetDevice(0));
    reduce<<<""")]),
    dict(slug="reduced-waited-for-on-device-0s-stream",
         shows="a race, in the record at every round (the chunk's free on s[1] not ordered after device 0's reduce of it, and the next round's chunk, the same memory, written while it may be read); the sums almost always right, since the next produce spins 3 ms before it writes",
         mistake="the wait before the free is queued as cudaStreamWaitEvent(t.s[0], t.reduced, 0), on the stream that recorded reduced, 'wait for the reduce', instead of on s[1], where the free is queued",
         why="a stream waiting on its own event's record waits for nothing new; s[1] frees the chunk as soon as its produce is done, while s[0] may still be reducing it",
         source="own",
         edits=[("""    CHECK(cudaStreamWaitEvent(t.s[1], t.reduced, 0));""", """    CHECK(cudaStreamWaitEvent(t.s[0], t.reduced, 0));""")]),
    dict(slug="chunk-sized-in-ints-not-bytes",
         shows="the program's own output: each chunk is a quarter of what produce writes and reduce reads (1 MiB of 4 MiB by default), so produce writes past the allocation; most likely past what the pool has mapped, an illegal address, and the program stops at main's wait with that error (no rounds line); where the pool happens to have the pages mapped, the sums right and the record shows writes and reads out of bounds",
         mistake="the chunk is allocated with cudaMallocFromPoolAsync(&chunk, n, ...), n taken for the size, where n counts ints",
         why="the allocation must hold n ints, n * sizeof(int) bytes; the kernels index up to n - 1 ints, three quarters of them past the allocation",
         source="own",
         edits=[("""    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[1]));""",
                 """    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n, t.pool[0], t.s[1]));""")]),
]
