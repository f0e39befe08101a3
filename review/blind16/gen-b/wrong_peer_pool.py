WRONG = [
("produced-waited-for-before-it-is-recorded",
 "race, the program's own output: device 0's reduce is ordered after the round before's produce (round 0: after nothing), so it reads each chunk before the 3 ms produce has written it; rounds summed wrong; the record: unordered uses",
 "one_round queues s[0]'s wait on produced before the cudaEventRecord on s[1] (the device-0 half written first), so each wait binds to the previous round's record",
 "cudaStreamWaitEvent waits for the event's most recent record at the time of the call, not a later one; in round 0 the event was never recorded and the wait does nothing, later it waits for the wrong round",
 "own",
 [('''    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[1]));
    produce<<<kBlocks, kThreads, 0, t.s[1]>>>(chunk, w1, n, r, kProduceNs);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t.produced, t.s[1]));
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamWaitEvent(t.s[0], t.produced, 0));
''', '''    CHECK(cudaStreamWaitEvent(t.s[0], t.produced, 0));
    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[1]));
    produce<<<kBlocks, kThreads, 0, t.s[1]>>>(chunk, w1, n, r, kProduceNs);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t.produced, t.s[1]));
    CHECK(cudaSetDevice(0));
''')]),
("chunk-sized-in-ints-not-bytes",
 "out of bounds (a sanitizer always; the sums now and then): each chunk holds n bytes, a quarter of what produce writes and reduce reads",
 "the chunk is allocated with n, the count of ints, as its size in bytes",
 "cudaMallocFromPoolAsync takes bytes; produce writes n ints (4n bytes), so three quarters of every write lands past the allocation, in memory of the pool that may belong to the next chunk or nothing at all",
 "own",
 [("cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[1])", "cudaMallocFromPoolAsync((void**)&chunk, n, t.pool[0], t.s[1])")]),
("pool-props-without-an-allocation-type",
 "the program's own output: setup stops at cudaMemPoolCreate (invalid argument) before any line is printed",
 "the pool properties are zeroed and given only a location; allocType is left 0 (cudaMemAllocationTypeInvalid)",
 "cudaMemPoolCreate requires allocType cudaMemAllocationTypePinned; a zeroed cudaMemPoolProps names an invalid type and the pool is refused",
 "own",
 [("        props.allocType = cudaMemAllocationTypePinned;\n", "")]),
("w1-never-given-back",
 "the record only: device 1's copy of the weights stays allocated to the end (a leak); every line printed is right",
 "finish destroys the events but never frees w1 (the student took 'except the pools' to mean the pools' memory goes with them)",
 "w1 is an allocation from pool[1]; nothing frees it, and the caller's cudaMemPoolDestroy does not count as giving it back, so the record sees memory still held at the end",
 "own",
 [("    CHECK(cudaFreeAsync(w1, t.s[1]));\n", "    (void)w1;\n")]),
]
