STUDENT = "exercises/day069/async_pipeline.cu"
DIR = "async-pipeline"
EXT = "cu"
COMMENT = "//"
CORRECT_HEADER = dict(
    kind="correct (a design of its own)",
    mistake="""none. The host's input, output and sums are three pieces of ONE
    cudaHostAlloc (portable) block, given back with one cudaFreeHost. Each
    iteration makes one device allocation holding its slice and, after it,
    its 64 partial sums; scale works in place; both copies back and the one
    free are queued on the iteration's stream. drain records an event on every
    stream and waits for each with cudaEventSynchronize.""",
    why="""it is not: every device buffer is allocated and freed in its stream's
    order after its last reader; the host memory is page-locked; the host waits
    only in drain, for every stream.""",
    source="""own design from the lesson (day 69, "Why cudaFree stalls a pipeline",
    "Exercise: async-pipeline"); the runtime API reference, cudaHostAlloc and
    cudaEventSynchronize.""")

CORRECT = [
("""    // TODO 1: what the pipeline keeps: the streams it was given, and the
    // host's memory that main fills and reads.
    float* in_ = nullptr;""",
"""    const cudaStream_t* streams_ = nullptr;
    int count_ = 0;
    void* host_ = nullptr; // the one page-locked block the three pieces share
    float* in_ = nullptr;"""),
("""    (void)streams;
    (void)count;
    in_ = static_cast<float*>(calloc(total, sizeof(float)));
    out_ = static_cast<float*>(calloc(total, sizeof(float)));
    sums_ = static_cast<long long*>(calloc((size_t)iterations * BLOCKS, sizeof(long long)));
}""",
"""    streams_ = streams;
    count_ = count;
    const size_t floats = total * sizeof(float);
    const size_t bytes = 2 * floats + (size_t)iterations * BLOCKS * sizeof(long long);
    CHECK(cudaHostAlloc(&host_, bytes, cudaHostAllocPortable));
    char* p = static_cast<char*>(host_);
    in_ = reinterpret_cast<float*>(p);
    out_ = reinterpret_cast<float*>(p + floats);
    sums_ = reinterpret_cast<long long*>(p + 2 * floats);
}"""),
("""void Pipeline::submit(int it, size_t off, int n) {
    (void)it;
    (void)off;
    (void)n;
}""",
"""void Pipeline::submit(int it, size_t off, int n) {
    cudaStream_t st = streams_[it % count_];
    const size_t values = (size_t)n * sizeof(float);
    char* dev = nullptr;
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&dev), values + BLOCKS * sizeof(long long), st));
    float* slice = reinterpret_cast<float*>(dev);
    long long* partial = reinterpret_cast<long long*>(dev + values);
    CHECK(cudaMemcpyAsync(slice, in_ + off, values, cudaMemcpyHostToDevice, st));
    scale<<<BLOCKS, THREADS, 0, st>>>(slice, slice, n, 2.0f);
    checksum<<<BLOCKS, THREADS, 0, st>>>(slice, n, partial);
    CHECK(cudaMemcpyAsync(out_ + off, slice, values, cudaMemcpyDeviceToHost, st));
    CHECK(cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, partial, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, st));
    CHECK(cudaFreeAsync(dev, st));
}"""),
("""void Pipeline::drain() {
}""",
"""void Pipeline::drain() {
    for (int i = 0; i < count_; i++) {
        cudaEvent_t e;
        CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        CHECK(cudaEventRecord(e, streams_[i]));
        CHECK(cudaEventSynchronize(e));
        CHECK(cudaEventDestroy(e));
    }
}"""),
("""Pipeline::~Pipeline() {
    free(in_);
    free(out_);
    free(sums_);
}""",
"""Pipeline::~Pipeline() {
    if (host_ != nullptr) cudaFreeHost(host_);
    host_ = nullptr;
}"""),
]

WRONG = [
("values-copied-back-on-next-stream", dict(
    kind="ordering: the last use on another stream than the free's",
    mistake="""the scaled values are copied back on the next stream (after a wait
    for an event recorded after checksum, so the copy itself is ordered after
    the kernels), but the allocation is still freed on the iteration's own
    stream, which never waits for that copy.""",
    why="""cudaFreeAsync frees in the order of the stream it is given: the block
    may be reused (by the next iteration on this stream) while the copy on the
    other stream still reads it, so a slice can come back with another
    iteration's values.""",
    source="""NVlabs/cuda-oxide#619 ("DeviceBuffer deallocation can race work
    submitted on another stream": the free is queued on the allocation stream
    while the last use was submitted on another)."""),
 [("""    CHECK(cudaMemcpyAsync(out_ + off, slice, values, cudaMemcpyDeviceToHost, st));""",
   """    cudaStream_t next = streams_[(it + 1) % count_];
    cudaEvent_t summed;
    CHECK(cudaEventCreateWithFlags(&summed, cudaEventDisableTiming));
    CHECK(cudaEventRecord(summed, st));
    CHECK(cudaStreamWaitEvent(next, summed, 0));
    CHECK(cudaEventDestroy(summed));
    CHECK(cudaMemcpyAsync(out_ + off, slice, values, cudaMemcpyDeviceToHost, next));""")]),
("host-freed-with-free", dict(
    kind="the wrong deallocator: page-locked memory given to free()",
    mistake="""the destructor gives the cudaHostAlloc block back with the C
    library's free() instead of cudaFreeHost.""",
    why="""memory from cudaHostAlloc must go back with cudaFreeHost: free() on it is
    undefined behaviour (the C library did not allocate it: an abort, or heap
    corruption), and the pages stay locked and known to the runtime.""",
    source="""wilicc/gpu-burn#17 ("Memory allocated by cuMemAllocHost() must be freed
    by cuMemFreeHost(), not free()"); OPM/opm-simulators#2720 (cudaMallocHost
    memory deallocated with delete[], segmentation faults)."""),
 [("""    if (host_ != nullptr) cudaFreeHost(host_);""",
   """    if (host_ != nullptr) free(host_);""")]),
("host-freed-from-a-piece", dict(
    kind="the wrong pointer: cudaFreeHost given a piece, not the block's start",
    mistake="""the destructor calls cudaFreeHost(out_), the second piece of the one
    page-locked block, not the start the allocation returned (and ignores the
    error).""",
    why="""cudaFreeHost takes only a pointer cudaHostAlloc returned; given one inside
    the block it fails with an invalid-value error, and the whole block stays
    allocated and page-locked: the destructor gives nothing back.""",
    source="""charmplusplus/charm#3639 ("HAPI releasePool() passes bad address to
    cudaFreeHost()": the pool's head had moved off the start of the pinned chunk
    made by cudaMallocHost)."""),
 [("""    if (host_ != nullptr) cudaFreeHost(host_);""",
   """    if (host_ != nullptr) cudaFreeHost(out_);""")]),
]
