"""async-pipeline: the correct design and four wrong files (blind8, first half)."""
from mk import student, edit, header, write, wrong

EX, EXT = "async-pipeline", "cu"
t = student("exercises/day069/async_pipeline.cu")

t = edit(t, """    // TODO 1: what the pipeline keeps: the streams it was given, and the
    // host's memory that main fills and reads.
    float* in_ = nullptr;""", """    // The streams main made (a copy of their handles), and the host's
    // memory, page-locked by cudaMallocHost so that the copies run while
    // the host goes on.
    cudaStream_t streams_[16] = {};
    int count_ = 0;
    float* in_ = nullptr;""")

t = edit(t, """Pipeline::Pipeline(const cudaStream_t* streams, int count, size_t total, int iterations) {
    (void)streams;
    (void)count;
    in_ = static_cast<float*>(calloc(total, sizeof(float)));
    out_ = static_cast<float*>(calloc(total, sizeof(float)));
    sums_ = static_cast<long long*>(calloc((size_t)iterations * BLOCKS, sizeof(long long)));
}""", """Pipeline::Pipeline(const cudaStream_t* streams, int count, size_t total, int iterations) {
    count_ = count < 16 ? count : 16;
    for (int i = 0; i < count_; i++) streams_[i] = streams[i];
    CHECK(cudaMallocHost(&in_, total * sizeof(float)));
    CHECK(cudaMallocHost(&out_, total * sizeof(float)));
    CHECK(cudaMallocHost(&sums_, (size_t)iterations * BLOCKS * sizeof(long long)));
}""")

t = edit(t, """void Pipeline::submit(int it, size_t off, int n) {
    (void)it;
    (void)off;
    (void)n;
}""", """// Two device allocations an iteration, both on its stream: the slice
// (freed as soon as scale, its one reader, is queued), and one block that
// holds the scaled values followed by the BLOCKS partial sums, freed after
// both copies back.
void Pipeline::submit(int it, size_t off, int n) {
    cudaStream_t s = streams_[it % count_];
    const size_t values = (size_t)n * sizeof(float);
    float* slice = nullptr;
    char* results = nullptr;
    CHECK(cudaMallocAsync(&slice, values, s));
    CHECK(cudaMallocAsync(&results, values + BLOCKS * sizeof(long long), s));
    float* scaled = reinterpret_cast<float*>(results);
    long long* partial = reinterpret_cast<long long*>(results + values);
    CHECK(cudaMemcpyAsync(slice, in_ + off, values, cudaMemcpyHostToDevice, s));
    scale<<<BLOCKS, THREADS, 0, s>>>(slice, scaled, n, 2.0f);
    CHECK(cudaFreeAsync(slice, s));
    checksum<<<BLOCKS, THREADS, 0, s>>>(scaled, n, partial);
    CHECK(cudaMemcpyAsync(out_ + off, scaled, values, cudaMemcpyDeviceToHost, s));
    CHECK(cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, partial, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(results, s));
}""")

t = edit(t, """void Pipeline::drain() {
}""", """// One wait for the whole device: every stream the iterations ran on is
// main's, and nothing else runs on the GPU here.
void Pipeline::drain() {
    CHECK(cudaDeviceSynchronize());
}""")

t = edit(t, """Pipeline::~Pipeline() {
    free(in_);
    free(out_);
    free(sums_);
}""", """Pipeline::~Pipeline() {
    cudaFreeHost(in_);
    cudaFreeHost(out_);
    cudaFreeHost(sums_);
}""")

write(EX, "correct.cu", header(
    "correct",
    "none: the host's three buffers from cudaMallocHost; two cudaMallocAsync an iteration on its stream (it % streams): the slice, freed right after scale is queued, and one block holding the scaled values followed by the partial sums, freed after both copies back; drain is one cudaDeviceSynchronize.",
    "none: it is correct.",
    "none (written from the lesson and the student file)."), t)
correct = t

wrong(EX, EXT, correct, "stream-picked-by-mask",
      "wrong (shows only with a number of streams that is not a power of two: some streams are never used)",
      "submit picks the iteration's stream with it & (count - 1) instead of it % count, a mask that equals the remainder only when count is a power of two (the default 4).",
      "on 3 streams it & 2 is 0 or 2: stream 1 never gets an iteration, so the iterations are not spread over every stream and fewer run side by side (on 5 streams only two are used); the default run, 4 streams, is right.",
      "nopSolutions/nopCommerce#6675 (an index masked with & (n - 1): 'only powers of 2 will work', replaced by %), netty/netty#2299 (the mask chooser kept for powers of two only)",
      [("""    cudaStream_t s = streams_[it % count_];""", """    cudaStream_t s = streams_[it & (count_ - 1)];""")])

wrong(EX, EXT, correct, "sums-freed-with-the-values",
      "wrong (the record only: the sums are copied from a block already freed in the stream's order)",
      "the block that holds the scaled values and the partial sums is freed right after the values' copy back, before the sums' copy, as if it held only the values.",
      "the sums live in the same allocation: their copy back is queued after its cudaFreeAsync, a use of freed memory in the stream's order; the pool gives the block to the next allocation of that stream only after the copy has run, so the numbers come out right.",
      "NVIDIA/cudf#21680 (a buffer released or moved while an asynchronous copy from it was still in flight: right only while the copy happened to synchronise), fastfields/fastfields-lib#88 (device buffers freed right after their asynchronous use, correct only by an accident of implementation)",
      [("""    CHECK(cudaMemcpyAsync(out_ + off, scaled, values, cudaMemcpyDeviceToHost, s));
    CHECK(cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, partial, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(results, s));""", """    CHECK(cudaMemcpyAsync(out_ + off, scaled, values, cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(results, s));
    CHECK(cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, partial, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, s));""")])

wrong(EX, EXT, correct, "results-freed-at-the-streams-next-iteration",
      "wrong (leak: the last block of every stream is never freed)",
      "each stream keeps its iteration's results block and frees it at that stream's next submit, before the new allocations, so that the copies back are 'surely done' when the memory goes; the last iteration of each stream leaves its block allocated when the pipeline is destroyed.",
      "a free in the stream's order after the copies is already safe; deferring it gains nothing, and the blocks of the last round (one per stream) are never given back to the pool: a device-memory leak the printed results do not show.",
      "periscop/cloog#30 (a buffer freed at the end of each loop iteration; a path that left the loop without reaching the free leaked it)",
      [("""    cudaStream_t streams_[16] = {};
    int count_ = 0;""", """    cudaStream_t streams_[16] = {};
    char* previous_[16] = {};  // each stream's last results block
    int count_ = 0;"""),
       ("""    cudaStream_t s = streams_[it % count_];""", """    cudaStream_t s = streams_[it % count_];
    if (previous_[it % count_] != nullptr) CHECK(cudaFreeAsync(previous_[it % count_], s));"""),
       ("""    CHECK(cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, partial, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(results, s));""", """    CHECK(cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, partial, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, s));
    previous_[it % count_] = results;""")])

wrong(EX, EXT, correct, "drain-waits-for-the-last-iterations-stream",
      "wrong (results read after a wait for one stream only; right by timing)",
      "drain synchronises only the stream the last iteration was queued on, reasoning that the last iteration queued finishes last and the earlier ones before it.",
      "streams run independently: nothing orders an earlier iteration on another stream before the last one, so the host may read results of streams it never waited for; main checks the last iteration first and the others are usually done by then.",
      "torch/cutorch#222 (synchronising with several streams through the last-recorded one only: 'tests passed because the work was enqueued to the streams in order, and last stream was done last. However ... there is no guarantee that the last stream will be done last')",
      [("""    cudaStream_t streams_[16] = {};
    int count_ = 0;""", """    cudaStream_t streams_[16] = {};
    cudaStream_t last_ = nullptr;  // the stream of the last iteration queued
    int count_ = 0;"""),
       ("""    cudaStream_t s = streams_[it % count_];""", """    cudaStream_t s = streams_[it % count_];
    last_ = s;"""),
       ("""void Pipeline::drain() {
    CHECK(cudaDeviceSynchronize());
}""", """void Pipeline::drain() {
    CHECK(cudaStreamSynchronize(last_));
}""")])
