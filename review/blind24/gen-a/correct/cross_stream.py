EX = "cross-stream"
STUDENT = "exercises/day070/cross_stream.cu"
DESIGN = ("four events in an array indexed by an enum (LOADED, SQUARED0, SQUARED1, REDUCED; EVENTS the count), timing off, made in start and destroyed in finish; "
          "each buffer allocated on the stream that writes it (the values on load_, each half's squares on its work stream after its wait, the partial sums on reduce_ "
          "after its two waits); EVERY free of a chunk on copy_, after its one wait for REDUCED and its copy: copy_'s order holds both reads of the values and the "
          "squares' writers and reader through the chain of waits, so no stage but the last frees anything; load_ never waits")
EDITS = [
("""    // TODO 1: what the chunk holds on the GPU between its stages: a
    // buffer for each kernel's output (see the kernels above; each half
    // has a square of its own).
};""",
"""    float* values = nullptr;             // generate's output: n floats
    float* squares[HALVES] = {nullptr};  // each half's square: n / HALVES floats
    float* partial = nullptr;            // sum's output: HALVES * BLOCKS floats
};"""),
("""    // TODO 2: the events the stages record and wait for. start makes
    // them, once; the stages record them again for every chunk (a stage
    // makes and destroys none); finish destroys them.
    int start();""",
"""    // The hand-offs, one event each: the values loaded, each half squared,
    // the sums made.
    enum { LOADED, SQUARED0, SQUARED1, REDUCED, EVENTS };
    cudaEvent_t ev_[EVENTS] = {};
    int start();"""),
("""int Pipeline::start() {
    return 0;
}""",
"""int Pipeline::start() {
    for (int e = 0; e < EVENTS; e++) CHECK(cudaEventCreateWithFlags(&ev_[e], cudaEventDisableTiming));
    return 0;
}"""),
("""int Pipeline::stage_load(Chunk& ch) {
    return 0;
}""",
"""int Pipeline::stage_load(Chunk& ch) {
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.values), (size_t)ch.n * sizeof(float), load_));
    generate<<<BLOCKS, THREADS, 0, load_>>>(ch.values, ch.n, ch.index);
    CHECK(cudaEventRecord(ev_[LOADED], load_));
    return 0;
}"""),
("""int Pipeline::stage_work(Chunk& ch, int half) {
    return 0;
}""",
"""int Pipeline::stage_work(Chunk& ch, int half) {
    const cudaStream_t s = work_[half];
    const int m = ch.n / HALVES;
    CHECK(cudaStreamWaitEvent(s, ev_[LOADED], 0));
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.squares[half]), (size_t)m * sizeof(float), s));
    square<<<BLOCKS, THREADS, 0, s>>>(ch.values + (size_t)half * m, ch.squares[half], m);
    CHECK(cudaEventRecord(ev_[SQUARED0 + half], s));
    // The values are freed on copy_, whose order comes after both halves'
    // reads through reduce_'s waits.
    return 0;
}"""),
("""int Pipeline::stage_reduce(Chunk& ch) {
    return 0;
}""",
"""int Pipeline::stage_reduce(Chunk& ch) {
    const int m = ch.n / HALVES;
    for (int h = 0; h < HALVES; h++) CHECK(cudaStreamWaitEvent(reduce_, ev_[SQUARED0 + h], 0));
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.partial), HALVES * BLOCKS * sizeof(float), reduce_));
    for (int h = 0; h < HALVES; h++) sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squares[h], m, ch.partial + h * BLOCKS);
    CHECK(cudaEventRecord(ev_[REDUCED], reduce_));
    return 0;
}"""),
("""int Pipeline::stage_copy(Chunk& ch) {
    return 0;
}""",
"""int Pipeline::stage_copy(Chunk& ch) {
    CHECK(cudaStreamWaitEvent(copy_, ev_[REDUCED], 0));
    CHECK(cudaMemcpyAsync(ch.result, ch.partial, HALVES * BLOCKS * sizeof(float), cudaMemcpyDeviceToHost, copy_));
    CHECK(cudaFreeAsync(ch.partial, copy_));
    for (int h = 0; h < HALVES; h++) CHECK(cudaFreeAsync(ch.squares[h], copy_));
    CHECK(cudaFreeAsync(ch.values, copy_));
    return 0;
}"""),
("""int Pipeline::finish() {
    return 0;
}""",
"""int Pipeline::finish() {
    for (int e = 0; e < EVENTS; e++) CHECK(cudaEventDestroy(ev_[e]));
    return 0;
}"""),
]
