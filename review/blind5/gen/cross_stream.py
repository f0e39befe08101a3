STUDENT = "exercises/day070/cross_stream.cu"
DIR = "cross-stream"
EXT = "cu"
COMMENT = "//"
CORRECT_HEADER = dict(
    kind="correct (a design of its own)",
    mistake="""none. Four events: loaded (load stream), squared[h] (each work stream),
    summed (reduce). The values are freed on the second work stream: after its
    own square it waits for the first work stream's squared event (recorded
    earlier, since main queues half 0 first) and frees them there, so the wait
    never delays its own square. The reduce stream waits for both squared
    events, sums, frees both squares and records summed; the copy stream waits
    for summed, copies and frees the partial sums.""",
    why="""it is not: every hand-off is a record followed, later in the host's
    order, by a wait on the stream that needs it; both reads of the values come
    before their free in work stream 1's order; nothing waits on the host.""",
    source="""own design from the lesson (day 70, "Sharing memory between streams",
    "Exercise: cross-stream"); the runtime API reference, cudaStreamWaitEvent
    ("uses the most recently captured state at the time of the call").""")

CORRECT = [
("""    // TODO 1: what the chunk holds on the GPU between its stages: a
    // buffer for each kernel's output (see the kernels above; each half
    // has a square of its own).
};""",
"""    float* raw = nullptr;              // generate's output
    float* squared[HALVES] = {};       // each half's squares
    float* partial = nullptr;          // HALVES * BLOCKS partial sums
};"""),
("""    // TODO 2: the events the stages record and wait for. start makes
    // them, once; the stages record them again for every chunk (a stage
    // makes and destroys none); finish destroys them.
    int start();""",
"""    cudaEvent_t loaded_ = nullptr, squared_[HALVES] = {}, summed_ = nullptr;
    int start();"""),
("""int Pipeline::start() {
    return 0;
}""",
"""int Pipeline::start() {
    CHECK(cudaEventCreateWithFlags(&loaded_, cudaEventDisableTiming));
    for (int h = 0; h < HALVES; h++) CHECK(cudaEventCreateWithFlags(&squared_[h], cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&summed_, cudaEventDisableTiming));
    return 0;
}"""),
("""int Pipeline::stage_load(Chunk& ch) {
    return 0;
}""",
"""int Pipeline::stage_load(Chunk& ch) {
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.raw), (size_t)ch.n * sizeof(float), load_));
    generate<<<BLOCKS, THREADS, 0, load_>>>(ch.raw, ch.n, ch.index);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(loaded_, load_));
    return 0;
}"""),
("""int Pipeline::stage_work(Chunk& ch, int half) {
    return 0;
}""",
"""int Pipeline::stage_work(Chunk& ch, int half) {
    cudaStream_t st = work_[half];
    const int m = ch.n / HALVES;
    CHECK(cudaStreamWaitEvent(st, loaded_, 0));
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.squared[half]), (size_t)m * sizeof(float), st));
    square<<<BLOCKS, THREADS, 0, st>>>(ch.raw + (size_t)half * m, ch.squared[half], m);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(squared_[half], st));
    if (half == HALVES - 1) {
        // the last reader: every other half recorded its squared event
        // before this stage was queued, so waiting for them puts their
        // reads before the free in this stream's order.
        for (int h = 0; h < HALVES - 1; h++) CHECK(cudaStreamWaitEvent(st, squared_[h], 0));
        CHECK(cudaFreeAsync(ch.raw, st));
        ch.raw = nullptr;
    }
    return 0;
}"""),
("""int Pipeline::stage_reduce(Chunk& ch) {
    return 0;
}""",
"""int Pipeline::stage_reduce(Chunk& ch) {
    const int m = ch.n / HALVES;
    for (int h = 0; h < HALVES; h++) CHECK(cudaStreamWaitEvent(reduce_, squared_[h], 0));
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.partial), HALVES * BLOCKS * sizeof(float), reduce_));
    for (int h = 0; h < HALVES; h++) {
        sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squared[h], m, ch.partial + h * BLOCKS);
        CHECK(cudaGetLastError());
    }
    for (int h = 0; h < HALVES; h++) {
        CHECK(cudaFreeAsync(ch.squared[h], reduce_));
        ch.squared[h] = nullptr;
    }
    CHECK(cudaEventRecord(summed_, reduce_));
    return 0;
}"""),
("""int Pipeline::stage_copy(Chunk& ch) {
    return 0;
}""",
"""int Pipeline::stage_copy(Chunk& ch) {
    CHECK(cudaStreamWaitEvent(copy_, summed_, 0));
    CHECK(cudaMemcpyAsync(ch.result, ch.partial, HALVES * BLOCKS * sizeof(float), cudaMemcpyDeviceToHost, copy_));
    CHECK(cudaFreeAsync(ch.partial, copy_));
    ch.partial = nullptr;
    return 0;
}"""),
("""int Pipeline::finish() {
    return 0;
}""",
"""int Pipeline::finish() {
    CHECK(cudaEventDestroy(loaded_));
    for (int h = 0; h < HALVES; h++) CHECK(cudaEventDestroy(squared_[h]));
    CHECK(cudaEventDestroy(summed_));
    return 0;
}"""),
]

WRONG = [
("first-half-frees-after-unrecorded-wait", dict(
    kind="ordering: a wait queued before the record it means to wait for",
    mistake="""the values are freed on the first work stream instead of the last: after
    its square it waits for the second work stream's squared event and frees
    them. But main queues half 0 before half 1, so when that wait is queued the
    event still holds the previous chunk's record (or none, for chunk 0).""",
    why="""cudaStreamWaitEvent waits for the record captured when it is called;
    the second half's read of this chunk's values is recorded only later, so the
    free is ordered after nothing of it and the second square may read memory
    the pool has already given to the next chunk's values.""",
    source="""sgl-project/sglang#14214 ("for the scenarios where the record happens
    later than the wait": event.wait() on one stream queued before event.record()
    on the other); eyalroz/cuda-api-wrappers#226 (the documentation's "most
    recently captured state at the time of the API call")."""),
 [("""    if (half == HALVES - 1) {
        // the last reader: every other half recorded its squared event
        // before this stage was queued, so waiting for them puts their
        // reads before the free in this stream's order.
        for (int h = 0; h < HALVES - 1; h++) CHECK(cudaStreamWaitEvent(st, squared_[h], 0));""",
   """    if (half == 0) {
        // the first reader frees them, once the other half is done with them.
        for (int h = 1; h < HALVES; h++) CHECK(cudaStreamWaitEvent(st, squared_[h], 0));""")]),
("partial-freed-on-legacy-stream", dict(
    kind="the wrong stream: a free queued on the legacy default stream",
    mistake="""stage_copy frees the partial sums with cudaFreeAsync(ch.partial, 0),
    on the legacy default stream, after queuing their copy on the copy stream.""",
    why="""the pipeline's streams are non-blocking: the legacy stream does not wait
    for them, so the free happens at once, before the copy (and maybe the sums)
    that still use the buffer, which the pool may hand to the next chunk.""",
    source="""supranational/sppark#81 (cudaFreeAsync(ptr, nullptr) in code whose
    callers use explicit streams everywhere else: the free runs on the legacy
    default stream); ai-dynamo/nixl#965 (cudaFree replaced by cudaFreeAsync(ptr,
    0))."""),
 [("""    CHECK(cudaFreeAsync(ch.partial, copy_));""",
   """    CHECK(cudaFreeAsync(ch.partial, 0));""")]),
("partial-freed-with-cudafree", dict(
    kind="the wrong deallocator: cudaFree on a stream-ordered allocation, taken as a synchronisation",
    mistake="""stage_copy frees the partial sums with cudaFree, trusting it to wait for
    the work queued before it, as it does for cudaMalloc memory.""",
    why="""for memory from cudaMallocAsync, cudaFree performs no implicit
    synchronisation: the caller must make sure every access is done. The copy
    of the sums is still queued, so the buffer goes back while it is read (and
    if cudaFree did wait, it would be a host wait inside a stage).""",
    source="""kokkos/kokkos#9307 ("cudaFree() does not imply a cudaDeviceSynchronize()":
    the runtime reference's note for pointers from cudaMallocAsync)."""),
 [("""    CHECK(cudaFreeAsync(ch.partial, copy_));""",
   """    CHECK(cudaFree(ch.partial));""")]),
]
