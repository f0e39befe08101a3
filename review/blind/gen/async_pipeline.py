ID = "async-pipeline"
SRC = "exercises/day069/async_pipeline.cu"
NOTE = "Correct design: iterations go to the streams in contiguous runs (not round robin), the input is freed right after scale so the sums can reuse it, and drain makes one stream wait for an event of every other stream and then waits on the host once, with one cudaStreamSynchronize in all."
def H(kind, mistake, why, source):
    return {"kind": kind, "mistake": mistake, "why it is wrong": why, "source": source}
PRIV_OLD = """    // TODO 1: what the pipeline keeps: the streams it was given, and the
    // host's memory that main fills and reads.
    float* in_ = nullptr;"""
PRIV_NEW = """    const cudaStream_t* streams_ = nullptr;
    int count_ = 0;
    int iterations_ = 0;
    cudaEvent_t* ends_ = nullptr; // one per stream, for drain's single wait
    float* in_ = nullptr;"""
CTOR_OLD = """Pipeline::Pipeline(const cudaStream_t* streams, int count, size_t total, int iterations) {
    (void)streams;
    (void)count;
    in_ = static_cast<float*>(calloc(total, sizeof(float)));
    out_ = static_cast<float*>(calloc(total, sizeof(float)));
    sums_ = static_cast<long long*>(calloc((size_t)iterations * BLOCKS, sizeof(long long)));
}"""
CTOR_NEW = """Pipeline::Pipeline(const cudaStream_t* streams, int count, size_t total, int iterations)
    : streams_(streams), count_(count), iterations_(iterations) {
    CHECK(cudaMallocHost(&in_, total * sizeof(float)));
    CHECK(cudaMallocHost(&out_, total * sizeof(float)));
    CHECK(cudaMallocHost(&sums_, (size_t)iterations * BLOCKS * sizeof(long long)));
    ends_ = new cudaEvent_t[count];
    for (int i = 0; i < count; i++) CHECK(cudaEventCreateWithFlags(&ends_[i], cudaEventDisableTiming));
}"""
SUBMIT_OLD = """void Pipeline::submit(int it, size_t off, int n) {
    (void)it;
    (void)off;
    (void)n;
}"""
SUBMIT_NEW = """void Pipeline::submit(int it, size_t off, int n) {
    // Contiguous runs: iterations [0, I/S) on stream 0, and so on; every
    // stream gets work when there are at least as many iterations.
    const int which = (int)((long long)it * count_ / iterations_);
    const cudaStream_t s = streams_[which];
    const size_t bytes = (size_t)n * sizeof(float);
    const size_t sumBytes = BLOCKS * sizeof(long long);
    float* d_in = nullptr;
    float* d_out = nullptr;
    long long* d_sums = nullptr;
    CHECK(cudaMallocAsync(&d_in, bytes, s));
    CHECK(cudaMemcpyAsync(d_in, in_ + off, bytes, cudaMemcpyHostToDevice, s));
    CHECK(cudaMallocAsync(&d_out, bytes, s));
    scale<<<BLOCKS, THREADS, 0, s>>>(d_in, d_out, n, 2.0f);
    CHECK(cudaFreeAsync(d_in, s)); // scale was its last reader, in s's order
    CHECK(cudaMallocAsync(&d_sums, sumBytes, s));
    checksum<<<BLOCKS, THREADS, 0, s>>>(d_out, n, d_sums);
    CHECK(cudaMemcpyAsync(out_ + off, d_out, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, d_sums, sumBytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(d_out, s));
    CHECK(cudaFreeAsync(d_sums, s));
}"""
DRAIN_OLD = """void Pipeline::drain() {
}"""
DRAIN_NEW = """void Pipeline::drain() {
    // Stream 0 waits, on the GPU, for the end of every other stream; then
    // the host waits once, for stream 0.
    for (int i = 1; i < count_; i++) {
        CHECK(cudaEventRecord(ends_[i], streams_[i]));
        CHECK(cudaStreamWaitEvent(streams_[0], ends_[i], 0));
    }
    CHECK(cudaStreamSynchronize(streams_[0]));
}"""
DTOR_OLD = """Pipeline::~Pipeline() {
    free(in_);
    free(out_);
    free(sums_);
}"""
DTOR_NEW = """Pipeline::~Pipeline() {
    for (int i = 0; i < count_; i++) cudaEventDestroy(ends_[i]);
    delete[] ends_;
    cudaFreeHost(in_);
    cudaFreeHost(out_);
    cudaFreeHost(sums_);
}"""
CORRECT = (H("correct", "None intended: contiguous stream assignment, input freed after its last reader, drain joins the streams on the GPU with events and waits once.", "n/a", "own"),
           [(PRIV_OLD, PRIV_NEW), (CTOR_OLD, CTOR_NEW), (SUBMIT_OLD, SUBMIT_NEW), (DRAIN_OLD, DRAIN_NEW), (DTOR_OLD, DTOR_NEW)])
WRONGS = [
 ("partial-drain",
  H("partial drain",
    "drain waits only for the stream that ran the last iteration, reasoning that the last iteration submitted is the last to finish. The other streams' iterations were queued earlier and usually are done by then, so the results print right, but nothing guarantees it: main reads every stream's output after a wait for one stream.",
    "Day 70, 'Exercise: async-pipeline': drain is the wait for every iteration queued; across streams only an event (or a wait on each stream) orders one stream's work before the host's reads ('Sharing memory between streams').",
    "own"),
  [(DRAIN_NEW, """void Pipeline::drain() {
    // The last iteration was queued last, so it ends last: wait for it.
    CHECK(cudaStreamSynchronize(streams_[(int)((long long)(iterations_ - 1) * count_ / iterations_)]));
}""")]),
 ("free-before-copy-back",
  H("free before the last use (in the same stream)",
    "The scaled buffer is freed right after checksum, its last kernel, but before the cudaMemcpyAsync that copies it back to the host. The copy then reads memory the pool already took back, which another allocation on the stream may get; as nothing is allocated in between here, the output usually prints right.",
    "Day 70, 'Sharing memory between streams': cudaFreeAsync must come after the buffer's last use in the freeing stream's order; a copy is a use.",
    "own"),
  [("""    checksum<<<BLOCKS, THREADS, 0, s>>>(d_out, n, d_sums);
    CHECK(cudaMemcpyAsync(out_ + off, d_out, bytes, cudaMemcpyDeviceToHost, s));""",
    """    checksum<<<BLOCKS, THREADS, 0, s>>>(d_out, n, d_sums);
    CHECK(cudaFreeAsync(d_out, s)); // no kernel reads it any more
    CHECK(cudaMemcpyAsync(out_ + off, d_out, bytes, cudaMemcpyDeviceToHost, s));"""),
   ("""    CHECK(cudaFreeAsync(d_out, s));
    CHECK(cudaFreeAsync(d_sums, s));
}""", """    CHECK(cudaFreeAsync(d_sums, s));
}""")]),
 ("memset-legacy-stream",
  H("race with the legacy default stream",
    "The partial sums are cleared with cudaMemset before checksum, 'to be safe'. cudaMemset runs on the legacy default stream, which a non-blocking stream never waits for, so the clear may run before the buffer's allocation is reached in stream s or after checksum wrote its sums, and it puts work on the default stream.",
    "Day 70, 'Sharing memory between streams': memory from cudaMallocAsync on stream a is ready in a; using it on another stream needs an event (and the exercise forbids synchronous copies and memsets and the default stream).",
    "https://github.com/cupy/cupy/issues/3777 (what the legacy default stream does and does not order with other streams)"),
  [("""    CHECK(cudaMallocAsync(&d_sums, sumBytes, s));
    checksum""", """    CHECK(cudaMallocAsync(&d_sums, sumBytes, s));
    CHECK(cudaMemset(d_sums, 0, sumBytes)); // start the sums from zero
    checksum""")]),
 ("submit-throttle-spin",
  H("host wait disguised",
    "To bound the memory in flight, submit spins on cudaStreamQuery of its stream until the stream is idle whenever two iterations are already queued on it. No synchronisation call appears, but the host waits for the GPU inside submit, and the next stream's work is queued late.",
    "Day 70, 'Exercise: async-pipeline': 'Nothing in submit may wait on the host' (a loop on cudaStreamQuery is a wait; the checks look for host waits between one iteration's allocations and the next).",
    "https://forums.developer.nvidia.com/t/cpu-spins-while-waiting-for-gpu-to-finish-computation/241672 (host spinning while the GPU works); the throttle is own"),
  [("""    const cudaStream_t s = streams_[which];
""", """    const cudaStream_t s = streams_[which];
    static int queued[16] = {};
    if (++queued[which] > 2) {
        while (cudaStreamQuery(s) == cudaErrorNotReady) {
        } // let the stream catch up before piling more on it
        queued[which] = 1;
    }
""")]),
 ("free-on-default-stream",
  H("wrong stream in a free",
    "The input buffer is given back with cudaFreeAsync(d_in, 0) right after scale, through a helper that 'frees on the default stream'. Stream 0 is the legacy default stream, which the non-blocking streams are not ordered with, so the free may run while scale still reads the input and the pool can hand the memory to the sums allocated next.",
    "Day 70, 'Sharing memory between streams': a free on a stream with no order to the use can run while the kernel still reads the memory.",
    "own"),
  [("""    CHECK(cudaFreeAsync(d_in, s)); // scale was its last reader, in s's order""",
    """    CHECK(cudaFreeAsync(d_in, 0)); // done with the input""")]),
]
