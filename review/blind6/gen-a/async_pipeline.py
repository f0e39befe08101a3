from gen import read, edit, header, write

S = read("exercises/day069/async_pipeline.cu")

C = S
C = edit(C, """    // TODO 1: what the pipeline keeps: the streams it was given, and the
    // host's memory that main fills and reads.
    float* in_ = nullptr;""", """    const cudaStream_t* streams_ = nullptr;
    int count_ = 0;
    size_t total_ = 0;
    int iterations_ = 0;
    float* in_ = nullptr;""")
C = edit(C, """Pipeline::Pipeline(const cudaStream_t* streams, int count, size_t total, int iterations) {
    (void)streams;
    (void)count;
    in_ = static_cast<float*>(calloc(total, sizeof(float)));
    out_ = static_cast<float*>(calloc(total, sizeof(float)));
    sums_ = static_cast<long long*>(calloc((size_t)iterations * BLOCKS, sizeof(long long)));
}""", """// The host's buffers stay where calloc put them; they are page-locked in
// place with cudaHostRegister, and unregistered before they are freed.
Pipeline::Pipeline(const cudaStream_t* streams, int count, size_t total, int iterations)
    : streams_(streams), count_(count), total_(total), iterations_(iterations) {
    in_ = static_cast<float*>(calloc(total, sizeof(float)));
    out_ = static_cast<float*>(calloc(total, sizeof(float)));
    sums_ = static_cast<long long*>(calloc((size_t)iterations * BLOCKS, sizeof(long long)));
    if (in_ == nullptr || out_ == nullptr || sums_ == nullptr) {
        fprintf(stderr, "out of host memory\\n");
        exit(1);
    }
    CHECK(cudaHostRegister(in_, total * sizeof(float), cudaHostRegisterDefault));
    CHECK(cudaHostRegister(out_, total * sizeof(float), cudaHostRegisterDefault));
    CHECK(cudaHostRegister(sums_, (size_t)iterations * BLOCKS * sizeof(long long), cudaHostRegisterDefault));
}""")
C = edit(C, """void Pipeline::submit(int it, size_t off, int n) {
    (void)it;
    (void)off;
    (void)n;
}""", """void Pipeline::submit(int it, size_t off, int n) {
    cudaStream_t s = streams_[it % count_];
    const size_t bytes = (size_t)n * sizeof(float);
    float* din = nullptr;
    float* dout = nullptr;
    long long* dpart = nullptr;
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&din), bytes, s));
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&dout), bytes, s));
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&dpart), BLOCKS * sizeof(long long), s));
    CHECK(cudaMemcpyAsync(din, in_ + off, bytes, cudaMemcpyHostToDevice, s));
    scale<<<BLOCKS, THREADS, 0, s>>>(din, dout, n, 2.0f);
    CHECK(cudaFreeAsync(din, s));  // its last reader, scale, is queued before
    checksum<<<BLOCKS, THREADS, 0, s>>>(dout, n, dpart);
    CHECK(cudaMemcpyAsync(out_ + off, dout, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, dpart, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(dout, s));
    CHECK(cudaFreeAsync(dpart, s));
}""")
C = edit(C, """void Pipeline::drain() {
}""", """void Pipeline::drain() {
    for (int i = 0; i < count_; i++) CHECK(cudaStreamSynchronize(streams_[i]));
}""")
C = edit(C, """Pipeline::~Pipeline() {
    free(in_);
    free(out_);
    free(sums_);
}""", """Pipeline::~Pipeline() {
    CHECK(cudaHostUnregister(in_));
    CHECK(cudaHostUnregister(out_));
    CHECK(cudaHostUnregister(sums_));
    free(in_);
    free(out_);
    free(sums_);
    (void)total_;
    (void)iterations_;
}""")
write("async-pipeline", "correct.cu", header(
    "correct",
    "none: the calloc'd host buffers pinned in place with cudaHostRegister (unregistered before free); per iteration three cudaMallocAsync on the iteration's stream (input, output, partial sums), the input freed right after scale, the rest after the copies back; drain synchronises each stream.",
    "it is not wrong: every device buffer lives in its stream's order, the host waits only in drain.",
    "none (written from the lesson and the student file).") + C)

# wrong 1: the device buffers allocated on the legacy default stream.
W1 = C
W1 = edit(W1, """    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&din), bytes, s));
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&dout), bytes, s));
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&dpart), BLOCKS * sizeof(long long), s));""", """    // Allocated on the default stream, as a library without a stream of
    // its own would: the memory is there as soon as the call returns.
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&din), bytes, 0));
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&dout), bytes, 0));
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&dpart), BLOCKS * sizeof(long long), 0));""")
write("async-pipeline", "wrong-buffers-allocated-on-stream-zero.cu", header(
    "wrong",
    "submit allocates each iteration's device buffers with cudaMallocAsync on stream 0 (the legacy default stream) and uses and frees them on the iteration's stream.",
    "main's streams are non-blocking: nothing orders the legacy stream's allocation before the copy in on the iteration's stream, so the copy may write memory the pool has not yet handed out in that order (a free of the same bytes queued on stream 0 by an earlier iteration is not ordered either); the pool usually has the memory ready at once, so the results are right.",
    "apache/arrow-nanoarrow#509 (review: allocating on the default stream is unsafe for callers on non-blocking streams), rapidsai/rmm#2156 (memory allocated synchronously, freed on a non-blocking stream: compute-sanitizer reports free-before-alloc)") + W1)

# wrong 2: drain's events recorded before the last copy back.
W2 = C
W2 = edit(W2, """    const cudaStream_t* streams_ = nullptr;""", """    const cudaStream_t* streams_ = nullptr;
    cudaEvent_t done_[16] = {};  // one per stream, recorded by submit; drain waits for each""")
W2 = edit(W2, """    CHECK(cudaHostRegister(sums_, (size_t)iterations * BLOCKS * sizeof(long long), cudaHostRegisterDefault));
}""", """    CHECK(cudaHostRegister(sums_, (size_t)iterations * BLOCKS * sizeof(long long), cudaHostRegisterDefault));
    for (int i = 0; i < count; i++) CHECK(cudaEventCreateWithFlags(&done_[i], cudaEventDisableTiming));
}""")
W2 = edit(W2, """    CHECK(cudaMemcpyAsync(out_ + off, dout, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, dpart, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, s));""", """    CHECK(cudaMemcpyAsync(out_ + off, dout, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaEventRecord(done_[it % count_], s));  // the iteration's results are on their way back
    CHECK(cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, dpart, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, s));""")
W2 = edit(W2, """    for (int i = 0; i < count_; i++) CHECK(cudaStreamSynchronize(streams_[i]));""", """    for (int i = 0; i < count_; i++) CHECK(cudaEventSynchronize(done_[i]));""")
W2 = edit(W2, """    CHECK(cudaHostUnregister(in_));""", """    for (int i = 0; i < count_; i++) CHECK(cudaEventDestroy(done_[i]));
    CHECK(cudaHostUnregister(in_));""")
write("async-pipeline", "wrong-drain-event-recorded-before-sums-copy.cu", header(
    "wrong",
    "submit records the stream's event after the output's copy back but before the partial sums' copy; drain waits for each stream's event with cudaEventSynchronize.",
    "the host reads every stream's last partial sums after a wait that does not cover their copy (nor the frees after it): the copy is 512 bytes queued right behind the event, and main checks the 4 MiB of output first, so by the time it reads the sums they have long arrived and every checksum prints right; a slower copy engine, or a host that reads the sums first, sees the 0xff bytes main put there.",
    "microsoft/onnxruntime#26512 (a device-to-host cudaMemcpyAsync assumed complete when the host read it: \"challenging to reproduce because cudaMemcpyAsync usually completes quickly\")") + W2)

# wrong 3: the results copied back with a synchronous cudaMemcpy.
W3 = C
W3 = edit(W3, """    CHECK(cudaMemcpyAsync(out_ + off, dout, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, dpart, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, s));""", """    // The host reads these, so they come back with the plain copy, which
    // returns once the data is there.
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(out_ + off, dout, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sums_ + (size_t)it * BLOCKS, dpart, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost));""")
write("async-pipeline", "wrong-copies-back-with-plain-memcpy.cu", header(
    "wrong",
    "submit brings each iteration's results back with cudaMemcpy after a cudaStreamSynchronize of the iteration's stream (the sync so that the legacy-stream copy sees the kernels' output).",
    "submit now waits on the host twice an iteration, so the next iteration is queued only after this one is over: no two streams ever run side by side, and drain is no longer the only host wait; every result is still right.",
    "alpaka-group/alpaka#850 (cudaMemcpy on the default stream does not wait for cudaStreamNonBlocking streams: the race that makes people add a stream sync before it), lsds/KungFu#65 (synchronising the stream on the host instead of recording and waiting on events costs the overlap)") + W3)
