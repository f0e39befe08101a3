from gen import read, edit, header, write

S = read("exercises/day070/cross_stream.cu")

C = S
C = edit(C, """    // TODO 1: what the chunk holds on the GPU between its stages: a
    // buffer for each kernel's output (see the kernels above; each half
    // has a square of its own).
};""", """    float* values = nullptr;            // generate's output, n floats
    float* squared[HALVES] = {};        // each half's squares, n / HALVES floats
    float* partial = nullptr;           // sum's output, HALVES * BLOCKS floats
};""")
C = edit(C, """    // TODO 2: the events the stages record and wait for. start makes
    // them, once; the stages record them again for every chunk (a stage
    // makes and destroys none); finish destroys them.
    int start();""", """    cudaEvent_t loaded_ = nullptr, squared_[HALVES] = {}, reduced_ = nullptr;
    int start();""")
C = edit(C, """int Pipeline::start() {
    return 0;
}""", """int Pipeline::start() {
    CHECK(cudaEventCreateWithFlags(&loaded_, cudaEventDisableTiming));
    for (int h = 0; h < HALVES; h++) CHECK(cudaEventCreateWithFlags(&squared_[h], cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&reduced_, cudaEventDisableTiming));
    return 0;
}""")
C = edit(C, """int Pipeline::stage_load(Chunk& ch) {
    return 0;
}""", """int Pipeline::stage_load(Chunk& ch) {
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.values), (size_t)ch.n * sizeof(float), load_));
    generate<<<BLOCKS, THREADS, 0, load_>>>(ch.values, ch.n, ch.index);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(loaded_, load_));
    return 0;
}""")
C = edit(C, """int Pipeline::stage_work(Chunk& ch, int half) {
    return 0;
}""", """int Pipeline::stage_work(Chunk& ch, int half) {
    cudaStream_t s = work_[half];
    const int m = ch.n / HALVES;
    CHECK(cudaStreamWaitEvent(s, loaded_, 0));
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.squared[half]), (size_t)m * sizeof(float), s));
    square<<<BLOCKS, THREADS, 0, s>>>(ch.values + (size_t)half * m, ch.squared[half], m);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(squared_[half], s));
    return 0;
}""")
C = edit(C, """int Pipeline::stage_reduce(Chunk& ch) {
    return 0;
}""", """// The values are freed here: reduce_ waits for both halves' squares, so
// its order includes both reads of them.
int Pipeline::stage_reduce(Chunk& ch) {
    const int m = ch.n / HALVES;
    for (int h = 0; h < HALVES; h++) CHECK(cudaStreamWaitEvent(reduce_, squared_[h], 0));
    CHECK(cudaFreeAsync(ch.values, reduce_));
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.partial), HALVES * BLOCKS * sizeof(float), reduce_));
    for (int h = 0; h < HALVES; h++) {
        sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squared[h], m, ch.partial + h * BLOCKS);
        CHECK(cudaGetLastError());
        CHECK(cudaFreeAsync(ch.squared[h], reduce_));
    }
    CHECK(cudaEventRecord(reduced_, reduce_));
    return 0;
}""")
C = edit(C, """int Pipeline::stage_copy(Chunk& ch) {
    return 0;
}""", """int Pipeline::stage_copy(Chunk& ch) {
    CHECK(cudaStreamWaitEvent(copy_, reduced_, 0));
    CHECK(cudaMemcpyAsync(ch.result, ch.partial, HALVES * BLOCKS * sizeof(float), cudaMemcpyDeviceToHost, copy_));
    CHECK(cudaFreeAsync(ch.partial, copy_));
    return 0;
}""")
C = edit(C, """int Pipeline::finish() {
    return 0;
}""", """int Pipeline::finish() {
    CHECK(cudaEventDestroy(loaded_));
    for (int h = 0; h < HALVES; h++) CHECK(cudaEventDestroy(squared_[h]));
    CHECK(cudaEventDestroy(reduced_));
    return 0;
}""")
write("cross-stream", "correct.cu", header(
    "correct",
    "none: four kinds of event made once (loaded, one squared per half, reduced); the values are freed on the reduce stream, whose order includes both halves' reads once it has waited for both squared events, before the sums; the squares after their sum; the partials on the copy stream after the copy.",
    "it is not wrong: every hand-off waits for a record made after the work it needs, every free comes after every reader in the freeing stream's order, nothing waits on the host.",
    "none (written from the lesson and the student file).") + C)

# wrong 1: one squares buffer for both halves, allocated by half 0.
W1 = C
W1 = edit(W1, """    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.squared[half]), (size_t)m * sizeof(float), s));
    square<<<BLOCKS, THREADS, 0, s>>>(ch.values + (size_t)half * m, ch.squared[half], m);""", """    // One buffer for all the squares, as for the values: half 0 (queued
    // first) allocates it, each half writes its own part.
    if (half == 0) CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.squared[0]), (size_t)ch.n * sizeof(float), s));
    else ch.squared[half] = ch.squared[0] + (size_t)half * m;
    square<<<BLOCKS, THREADS, 0, s>>>(ch.values + (size_t)half * m, ch.squared[half], m);""")
W1 = edit(W1, """        CHECK(cudaFreeAsync(ch.squared[h], reduce_));
    }""", """    }
    CHECK(cudaFreeAsync(ch.squared[0], reduce_));""")
write("cross-stream", "wrong-one-squares-buffer-for-both-halves.cu", header(
    "wrong",
    "both halves' squares go to one buffer that half 0 allocates with cudaMallocAsync on its own work stream; half 1 writes its part from the other work stream, which waited only for the values.",
    "an allocation is ready only in the order of the stream it was made on: nothing orders work_[0]'s cudaMallocAsync before work_[1]'s square, and when the pool hands work_[0] memory that the reduce stream freed for an earlier chunk (it may, following that free's event into work_[0] alone), half 1 can write it while the earlier chunk's sum still reads it. The pool usually has the bytes ready at once, so every sum prints right.",
    "rapidsai/rmm#2156 (memory used and freed on a non-blocking stream other than the one it was allocated in order on: compute-sanitizer's free-before-alloc), NVIDIA/cccl#2143 (memory from cudaMallocAsync must be valid in the stream that uses it: a launch on another stream needs an order)") + W1)

# wrong 2: half 1 waits for half 0 before its own square.
W2 = C
W2 = edit(W2, """    CHECK(cudaStreamWaitEvent(s, loaded_, 0));
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.squared[half]), (size_t)m * sizeof(float), s));""", """    CHECK(cudaStreamWaitEvent(s, loaded_, 0));
    // Half 1 is queued after half 0: ordering it after half 0's square
    // here lets it free the values once its own square is done.
    if (half > 0) CHECK(cudaStreamWaitEvent(s, squared_[half - 1], 0));
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.squared[half]), (size_t)m * sizeof(float), s));""")
W2 = edit(W2, """    CHECK(cudaEventRecord(squared_[half], s));
    return 0;
}""", """    if (half == HALVES - 1) CHECK(cudaFreeAsync(ch.values, s));
    CHECK(cudaEventRecord(squared_[half], s));
    return 0;
}""")
W2 = edit(W2, """    CHECK(cudaFreeAsync(ch.values, reduce_));
""", "")
write("cross-stream", "wrong-second-half-waits-before-its-square.cu", header(
    "wrong",
    "to free the values on the second work stream, that stream waits for the first half's squared event before launching its own square (not after it), then frees the values.",
    "the wait is in the right stream but at the wrong place: the second half's square now starts only when the first half's has ended, so the two halves of a chunk never run side by side (the fan-out is gone), though every read still comes before the free and every sum is right.",
    "NVIDIA/Fuser#4217 (the same waits and kernels emitted in another order on the host changed which streams overlapped: where a wait is queued decides what runs side by side)") + W2)

# wrong 3: the squares handed back to the work streams that made them.
W3 = C
W3 = edit(W3, """        sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squared[h], m, ch.partial + h * BLOCKS);
        CHECK(cudaGetLastError());
        CHECK(cudaFreeAsync(ch.squared[h], reduce_));
    }
    CHECK(cudaEventRecord(reduced_, reduce_));""", """        sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squared[h], m, ch.partial + h * BLOCKS);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaEventRecord(reduced_, reduce_));
    // Each square goes back on the stream that allocated it, once that
    // stream has waited for the sums: its pool sees it free in its own order.
    for (int h = 0; h < HALVES; h++) {
        CHECK(cudaStreamWaitEvent(work_[h], reduced_, 0));
        CHECK(cudaFreeAsync(ch.squared[h], work_[h]));
    }""")
write("cross-stream", "wrong-squares-freed-back-on-work-streams.cu", header(
    "wrong",
    "each half's squares are freed on the work stream that allocated them, after that work stream waits for the reduce stream's event.",
    "the frees are ordered after the sums, so no memory is misused, but each work stream now waits for this chunk's reduce before the next chunk's square: the work stage of chunk c + 1 cannot overlap the reduce of chunk c, and the pipeline runs a stage behind where it could.",
    "pytorch/pytorch#181191 and pytorch/pytorch#193686 (FSDP2's hand-made lifetime: the producer stream waits on the consumer's event before the free; the thread notes that holding a buffer until its consumer is done costs the overlap that record_stream keeps)") + W3)
