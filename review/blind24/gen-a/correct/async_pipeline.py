EX = "async-pipeline"
STUDENT = "exercises/day069/async_pipeline.cu"
DESIGN = ("main's stream array kept by pointer with its count; the host's input, output and sums three separate cudaHostAlloc(cudaHostAllocMapped) buffers "
          "(page-locked and mapped, never used through their device addresses), each given back with cudaFreeHost; iteration it on streams[it % count] with TWO "
          "cudaMallocAsync blocks: the input slice, freed in the stream's order right after scale (before checksum and the copies back, its last reader done), and "
          "an output block holding the scaled values with the BLOCKS partial sums at the next 256-byte boundary after them, freed after both copies back; drain is ONE "
          "cudaDeviceSynchronize (no per-stream waits)")
EDITS = [
("""    // TODO 1: what the pipeline keeps: the streams it was given, and the
    // host's memory that main fills and reads.
    float* in_ = nullptr;""",
"""    // main's streams, by pointer (main keeps them alive longer than the
    // pipeline), and the host's memory, page-locked.
    const cudaStream_t* streams_ = nullptr;
    int count_ = 0;
    float* in_ = nullptr;"""),
("""Pipeline::Pipeline(const cudaStream_t* streams, int count, size_t total, int iterations) {
    (void)streams;
    (void)count;
    in_ = static_cast<float*>(calloc(total, sizeof(float)));
    out_ = static_cast<float*>(calloc(total, sizeof(float)));
    sums_ = static_cast<long long*>(calloc((size_t)iterations * BLOCKS, sizeof(long long)));
}""",
"""Pipeline::Pipeline(const cudaStream_t* streams, int count, size_t total, int iterations) : streams_(streams), count_(count) {
    // Mapped as well as page-locked: a copy from or to it runs while the
    // host goes on (the device addresses are not used).
    CHECK(cudaHostAlloc(reinterpret_cast<void**>(&in_), total * sizeof(float), cudaHostAllocMapped));
    CHECK(cudaHostAlloc(reinterpret_cast<void**>(&out_), total * sizeof(float), cudaHostAllocMapped));
    CHECK(cudaHostAlloc(reinterpret_cast<void**>(&sums_), (size_t)iterations * BLOCKS * sizeof(long long), cudaHostAllocMapped));
}"""),
("""void Pipeline::submit(int it, size_t off, int n) {
    (void)it;
    (void)off;
    (void)n;
}""",
"""void Pipeline::submit(int it, size_t off, int n) {
    const cudaStream_t s = streams_[it % count_];
    const size_t bytes = (size_t)n * sizeof(float);
    const size_t sumsAt = (bytes + 255) / 256 * 256;  // the partial sums' place in the output block
    float* input = nullptr;
    float* output = nullptr;
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&input), bytes, s));
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&output), sumsAt + BLOCKS * sizeof(long long), s));
    long long* partial = reinterpret_cast<long long*>(reinterpret_cast<char*>(output) + sumsAt);
    CHECK(cudaMemcpyAsync(input, in_ + off, bytes, cudaMemcpyHostToDevice, s));
    scale<<<BLOCKS, THREADS, 0, s>>>(input, output, n, 2.0f);
    CHECK(cudaFreeAsync(input, s));  // scale was its last reader
    checksum<<<BLOCKS, THREADS, 0, s>>>(output, n, partial);
    CHECK(cudaMemcpyAsync(out_ + off, output, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, partial, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(output, s));
}"""),
("""void Pipeline::drain() {
}""",
"""void Pipeline::drain() {
    // One wait for the whole device: every stream's iterations at once.
    CHECK(cudaDeviceSynchronize());
}"""),
("""Pipeline::~Pipeline() {
    free(in_);
    free(out_);
    free(sums_);
}""",
"""Pipeline::~Pipeline() {
    CHECK(cudaFreeHost(in_));
    CHECK(cudaFreeHost(out_));
    CHECK(cudaFreeHost(sums_));
}"""),
]
