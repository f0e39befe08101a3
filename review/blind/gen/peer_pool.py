ID = "peer-pool"
SRC = "exercises/day075/peer_pool.cu"
NOTE = "Correct design: each chunk goes back to its pool on the stream that allocated it (device 1's), after that stream waits for device 0's sum; one event each way, reused every round (each wait is queued right after its record); the weights are pulled by device 1's stream with `cudaMemcpyAsync(..., cudaMemcpyDefault)` after it waits for device 0's `init_weights`, so the harness's free of `w0` on device 0's stream is ordered after the copy through round 0's wait. Needs two GPUs: not run here."


def H(kind, mistake, why, source):
    return {"kind": kind, "mistake": mistake, "why it is wrong": why, "source": source}


E = [
("""    // Yours: whatever else you keep between the calls below.
    // TODO: write this part
};""", """    // Yours: whatever else you keep between the calls below.
    cudaEvent_t weights_begun = nullptr;   // device 0's: init_weights is queued before it
    cudaEvent_t written = nullptr;         // device 1's: a round's chunk is written
    cudaEvent_t summed = nullptr;          // device 0's: a round's chunk is added up
};"""),
("""void setup(Two& t) {
    // TODO: your code
    (void)t;
}""", """void setup(Two& t) {
    for (int d = 0; d < 2; d++) {
        CHECK(cudaSetDevice(d));
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = d;
        CHECK(cudaMemPoolCreate(&t.pool[d], &props));
        CHECK(cudaDeviceSetMemPool(d, t.pool[d]));
    }
    // Device 1 writes the chunks, which live in device 0's pool. Access is
    // the pool's, for every block it hands out, so once is enough.
    cudaMemAccessDesc rw = {};
    rw.location.type = cudaMemLocationTypeDevice;
    rw.location.id = 1;
    rw.flags = cudaMemAccessFlagsProtReadWrite;
    CHECK(cudaMemPoolSetAccess(t.pool[0], &rw, 1));
    // An event belongs to the device current when it is made, and can be
    // recorded only on that device's streams.
    CHECK(cudaSetDevice(1));
    CHECK(cudaEventCreateWithFlags(&t.written, cudaEventDisableTiming));
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventCreateWithFlags(&t.weights_begun, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&t.summed, cudaEventDisableTiming));
}"""),
("""    int* w1 = nullptr;
    // TODO: your code
    (void)t;
    (void)w0;
    (void)bytes;
    return w1;""", """    int* w1 = nullptr;
    // Device 1 pulls the weights: its stream waits until device 0's stream
    // has made them, then allocates its copy (from its own current pool)
    // and copies, all in device 1's order.
    CHECK(cudaEventRecord(t.weights_begun, t.s[0]));
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(t.s[1], t.weights_begun, 0));
    CHECK(cudaMallocAsync((void**)&w1, bytes, t.s[1]));
    CHECK(cudaMemcpyAsync(w1, w0, bytes, cudaMemcpyDefault, t.s[1]));
    CHECK(cudaSetDevice(0));
    return w1;"""),
("""void one_round(Two& t, int r, const int* w1, size_t n, unsigned long long* sum) {
    // TODO: your code
    (void)t;
    (void)r;
    (void)w1;
    (void)n;
    (void)sum;
}""", """void one_round(Two& t, int r, const int* w1, size_t n, unsigned long long* sum) {
    int* chunk = nullptr;
    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[1]));
    produce<<<kBlocks, kThreads, 0, t.s[1]>>>(chunk, w1, n, r, kProduceNs);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t.written, t.s[1]));
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamWaitEvent(t.s[0], t.written, 0));
    reduce<<<kBlocks, kThreads, 0, t.s[0]>>>(chunk, n, sum);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t.summed, t.s[0]));
    // The chunk goes back on the stream that allocated it, once that stream
    // has waited for the sum: the next round's allocation on the same
    // stream may then take the same block.
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(t.s[1], t.summed, 0));
    CHECK(cudaFreeAsync(chunk, t.s[1]));
    CHECK(cudaSetDevice(0));
}"""),
("""void finish(Two& t, int* w1) {
    // TODO: your code
    (void)t;
    (void)w1;
}""", """void finish(Two& t, int* w1) {
    // Every use of w1 (each produce) is on device 1's stream: freeing it
    // there orders the free after the last one.
    CHECK(cudaSetDevice(1));
    CHECK(cudaFreeAsync(w1, t.s[1]));
    CHECK(cudaEventDestroy(t.written));
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventDestroy(t.weights_begun));
    CHECK(cudaEventDestroy(t.summed));
    t.written = t.weights_begun = t.summed = nullptr;
}"""),
]

CORRECT = (H("correct",
             "None intended: pools made and set current on both devices, read-write access for device 1 on device 0's empty pool, weights pulled by device 1's stream after an event from device 0's, each chunk allocated from device 0's pool on device 1's stream, produced, handed to device 0 by an event, added up, handed back by a second event and freed on the stream that allocated it.",
             "Correct: every use of a chunk is ordered after its allocation (same stream, or an event) and its free after every use (device 1's stream waits for device 0's sum); the weights copy is ordered after init_weights and before every produce; the harness's free of w0 on device 0's stream follows round 0's wait, which follows the copy. One event each way is reused every round: each cudaStreamWaitEvent is queued right after its cudaEventRecord and takes that record.",
             "own"),
           E)

WRONGS = [
("free-before-sum",
 H("free ordered on one device only (output identical)",
   "The chunk is freed on device 1's stream right after produce (and the event record), in the allocating stream's order, with no wait for device 0's sum: the student reads 'freed in stream order' as 'freed when the stream's work, and so every use, is done'.",
   "cudaFreeAsync orders the free after the work queued on that stream only. Device 0's reduce is queued after it and not ordered before it, so the next round's cudaMallocFromPoolAsync on the same stream may take the same block while reduce still reads it. produce waits 3 ms before it writes, so reduce has finished by then and every sum is right: the race is in the order, not (yet) in the numbers.",
   "https://github.com/NVIDIA/cccl/pull/1637 (review: the pointer passed to deallocate_async 'must not be in use in a stream other than' the freeing stream; 'the caller's responsibility to properly synchronize all relevant streams')"),
 [("""    CHECK(cudaEventRecord(t.written, t.s[1]));
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamWaitEvent(t.s[0], t.written, 0));""", """    CHECK(cudaEventRecord(t.written, t.s[1]));
    CHECK(cudaFreeAsync(chunk, t.s[1]));   // stream-ordered: after produce
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamWaitEvent(t.s[0], t.written, 0));"""),
  ("""    CHECK(cudaEventRecord(t.summed, t.s[0]));
    // The chunk goes back on the stream that allocated it, once that stream
    // has waited for the sum: the next round's allocation on the same
    // stream may then take the same block.
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(t.s[1], t.summed, 0));
    CHECK(cudaFreeAsync(chunk, t.s[1]));
    CHECK(cudaSetDevice(0));
}""", """    CHECK(cudaEventRecord(t.summed, t.s[0]));
}""")]),
("alloc-on-reader-stream",
 H("use not ordered after its allocation (output identical)",
   "The chunk is allocated with a plain cudaMallocAsync on device 0's stream (device 0's current pool is the program's pool on device 0, so the chunk does land in device 0's memory), and device 1's produce writes it with no event from device 0's stream: the student takes the returned pointer as memory ready for any stream.",
   "A block from cudaMallocAsync is ready in the order of the stream that allocated it only. produce on device 1's stream is not ordered after the allocation on device 0's stream, so it may write a block the pool has not yet handed out in that order (one still in use in device 0's order). The exercise also asks for the chunk to be allocated on the stream that writes it. The 3 ms wait in produce and the free on device 1's stream after the sum make every sum right.",
   "https://forums.developer.nvidia.com/t/how-does-cudamemcpypeer-async-work-with-streams/267521 (answer: cudaMallocAsync on one GPU's stream, then a use on another GPU's stream, marked 'error, ptr may not be ready')"),
 [("""    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[1]));
    produce""", """    // device 0's current pool is ours: the chunk lands in device 0's memory
    CHECK(cudaMallocAsync((void**)&chunk, n * sizeof(int), t.s[0]));
    CHECK(cudaSetDevice(1));
    produce""")]),
("memcpy-peer-legacy",
 H("copy on the legacy stream, ordered after nothing (output identical, mostly)",
   "share_weights allocates w1 on device 1's stream and copies with the blocking cudaMemcpyPeer, no event: the student takes a call without Async for one that waits for everything before it and is finished when it returns.",
   "cudaMemcpyPeer runs on the legacy default stream, which does not synchronise with streams made cudaStreamNonBlocking (both of the harness's streams): the copy is ordered neither after init_weights on device 0's stream (it may copy weights not yet written) nor after w1's allocation on device 1's stream, and a device-to-device copy may return before it is done, so produce is not ordered after it either. The exercise also forbids the legacy stream. init_weights is short and produce waits 3 ms before it reads, so the sums are right on almost every run.",
   "https://wiki.huangxt.cn/gpu/CUDA-Runtime-API-Synchronization-and-Stream-Behavior (the legacy stream's implicit synchronisation excepts non-blocking streams); CUDA Runtime API, 'API synchronization behavior' (device-to-device copies: no host-side synchronisation)"),
 [("""    // Device 1 pulls the weights: its stream waits until device 0's stream
    // has made them, then allocates its copy (from its own current pool)
    // and copies, all in device 1's order.
    CHECK(cudaEventRecord(t.weights_begun, t.s[0]));
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(t.s[1], t.weights_begun, 0));
    CHECK(cudaMallocAsync((void**)&w1, bytes, t.s[1]));
    CHECK(cudaMemcpyAsync(w1, w0, bytes, cudaMemcpyDefault, t.s[1]));
    CHECK(cudaSetDevice(0));""", """    // Device 1's copy, from its own current pool; cudaMemcpyPeer is the
    // blocking copy, so the weights are there when it returns.
    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocAsync((void**)&w1, bytes, t.s[1]));
    CHECK(cudaMemcpyPeer(w1, 1, w0, 0, bytes));
    CHECK(cudaSetDevice(0));""")]),
("weights-read-remotely",
 H("no copy: device 1 reads device 0's weights over the link (output identical)",
   "share_weights returns w0 itself after ordering device 1's stream after init_weights: device 1 has read-write access to device 0's pool (setup gave it), and w0 came from that pool, so the student reasons that a copy is wasted work; finish then has no weights of its own to give back.",
   "The exercise asks for device 1's own copy in device 1's memory, copied once: every produce now reads the whole weights across the link between the devices, the cost the lesson says a copy avoids. Nothing faults and the sums are right (the harness frees w0 on device 0's stream after the last sum, which waited for the last produce), so only the allocations per device and the copies between devices show it.",
   "own (the lesson's 'Copying a device's weights once to the device that reads them again and again is often cheaper than reading them over the link every time')"),
 [("""    int* w1 = nullptr;
    // Device 1 pulls the weights: its stream waits until device 0's stream
    // has made them, then allocates its copy (from its own current pool)
    // and copies, all in device 1's order.
    CHECK(cudaEventRecord(t.weights_begun, t.s[0]));
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(t.s[1], t.weights_begun, 0));
    CHECK(cudaMallocAsync((void**)&w1, bytes, t.s[1]));
    CHECK(cudaMemcpyAsync(w1, w0, bytes, cudaMemcpyDefault, t.s[1]));
    CHECK(cudaSetDevice(0));
    return w1;""", """    // w0 lives in device 0's pool, which device 1 may read and write
    // (setup): device 1 reads it where it is once it is made.
    (void)bytes;
    CHECK(cudaEventRecord(t.weights_begun, t.s[0]));
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(t.s[1], t.weights_begun, 0));
    CHECK(cudaSetDevice(0));
    return const_cast<int*>(w0);"""),
  ("""    CHECK(cudaSetDevice(1));
    CHECK(cudaFreeAsync(w1, t.s[1]));
    CHECK(cudaEventDestroy(t.written));""", """    (void)w1;   // device 0's weights: the caller frees them
    CHECK(cudaSetDevice(1));
    CHECK(cudaEventDestroy(t.written));""")]),
("chunk-bytes-constant",
 H("a constant for an argument: a branch the defaults never take",
   "one_round allocates each chunk as 4 MiB, the size the exercise names (its default), instead of n ints: the student sized the chunk from the comment, not from n.",
   "With the default 4 MiB the program is right. With any other size the chunk is wrong: larger chunks make produce write past the end of the block (inside the pool's reserved memory, which may hold w0 or another block: no fault, the copy to w1 was made before, so the sums stay right) and reduce read past it; smaller ones allocate more than is used. Only a run with other sizes, with a bounds checker or the bytes allocated, shows it.",
   "own (issue 36's kind 'a constant for an argument')"),
 [("""    int* chunk = nullptr;
    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[1]));""", """    int* chunk = nullptr;
    const size_t kChunkBytes = (size_t)4 << 20;   // 4 MiB per chunk
    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, kChunkBytes, t.pool[0], t.s[1]));""")]),
]
