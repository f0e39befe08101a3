EXERCISE = 'cross-stream'
STUDENT = 'exercises/day070/cross_stream.cu'
EXT = 'cu'
TODO = [
("""    // TODO 1: what the chunk holds on the GPU between its stages: a
    // buffer for each kernel's output (see the kernels above; each half
    // has a square of its own).
};""",
"""    float* values = nullptr;            // generate's output, n floats
    float* squares[HALVES] = {};        // square's output, n / HALVES floats each
    float* partial = nullptr;           // sum's output, HALVES * BLOCKS floats
};"""),
("""    // TODO 2: the events the stages record and wait for. start makes
    // them, once; the stages record them again for every chunk (a stage
    // makes and destroys none); finish destroys them.
    int start();""",
"""    // loaded_: the values are written (load_); squared_[h]: half h's
    // square is written and its read of the values over (work_[h]);
    // reduced_: the partial sums are written and the squares read
    // (reduce_). Each is recorded again for every chunk: main queues
    // every wait on a chunk's record before the next chunk's.
    cudaEvent_t loaded_ = nullptr, squared_[HALVES] = {}, reduced_ = nullptr;
    int start();"""),
("""int Pipeline::start() {
    return 0;
}""",
"""int Pipeline::start() {
    CHECK(cudaEventCreateWithFlags(&loaded_, cudaEventDisableTiming));
    for (int h = 0; h < HALVES; h++) CHECK(cudaEventCreateWithFlags(&squared_[h], cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&reduced_, cudaEventDisableTiming));
    return 0;
}"""),
("""int Pipeline::stage_load(Chunk& ch) {
    return 0;
}""",
"""int Pipeline::stage_load(Chunk& ch) {
    CHECK(cudaMallocAsync(&ch.values, (size_t)ch.n * sizeof(float), load_));
    generate<<<BLOCKS, THREADS, 0, load_>>>(ch.values, ch.n, ch.index);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(loaded_, load_));
    return 0;
}"""),
("""int Pipeline::stage_work(Chunk& ch, int half) {
    return 0;
}""",
"""int Pipeline::stage_work(Chunk& ch, int half) {
    cudaStream_t s = work_[half];
    const int m = ch.n / HALVES;
    CHECK(cudaStreamWaitEvent(s, loaded_, 0));
    CHECK(cudaMallocAsync(&ch.squares[half], (size_t)m * sizeof(float), s));
    square<<<BLOCKS, THREADS, 0, s>>>(ch.values + (size_t)half * m, ch.squares[half], m);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(squared_[half], s));
    if (half == HALVES - 1) {
        // The values go back on their producer, once it has waited for
        // both readers: both squares are queued by now, so both events
        // hold this chunk's records. The producer's next chunk then
        // follows this chunk's squares: the price of freeing here.
        for (int h = 0; h < HALVES; h++) CHECK(cudaStreamWaitEvent(load_, squared_[h], 0));
        CHECK(cudaFreeAsync(ch.values, load_));
        ch.values = nullptr;
    }
    return 0;
}"""),
("""int Pipeline::stage_reduce(Chunk& ch) {
    return 0;
}""",
"""int Pipeline::stage_reduce(Chunk& ch) {
    const int m = ch.n / HALVES;
    for (int h = 0; h < HALVES; h++) CHECK(cudaStreamWaitEvent(reduce_, squared_[h], 0));
    CHECK(cudaMallocAsync(&ch.partial, HALVES * BLOCKS * sizeof(float), reduce_));
    for (int h = 0; h < HALVES; h++) {
        sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squares[h], m, ch.partial + h * BLOCKS);
        CHECK(cudaGetLastError());
        // The squares were allocated on a work stream; reduce_ waited for
        // that stream's record after the square, so its order holds
        // their allocation, their writing and, now, their last read.
        CHECK(cudaFreeAsync(ch.squares[h], reduce_));
        ch.squares[h] = nullptr;
    }
    CHECK(cudaEventRecord(reduced_, reduce_));
    return 0;
}"""),
("""int Pipeline::stage_copy(Chunk& ch) {
    return 0;
}""",
"""int Pipeline::stage_copy(Chunk& ch) {
    CHECK(cudaStreamWaitEvent(copy_, reduced_, 0));
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
    CHECK(cudaEventDestroy(reduced_));
    return 0;
}"""),
]
CORRECT = dict(
    kind='correct',
    mistake="none: the values freed on their producer (load_) after it waited for both halves' squared events, queued once the second half's square and record are; each half's squares freed on the reduce stream after their sum; the partial sums on the copy stream after the copy; four kinds of event made once in start",
    **{'why it is wrong': "it is not: every free is queued on a stream whose order holds every read of the buffer; the producer follows its consumers, which costs overlap (load_'s next chunk waits for this chunk's squares), not correctness"},
    source='none (written from the lesson and the student file)')
WRONG = [
('producer-waits-for-the-last-square-only',
 dict(kind='wrong (order between streams: a race the sums rarely show)',
      mistake="the producer waits only for the second half's squared event before freeing the values, taking half 1 (queued last by main) for the last reader",
      **{'why it is wrong': "the two halves run side by side on two streams, so the second half's record says nothing of the first half's read: load_ frees the values, and generates the next chunk into the same memory, while half 0's square may still read them. Both squares spin as long, so they usually end together and the sums come out right; the free is still ordered after only one of its two readers"},
      source="AcademySoftwareFoundation/openvdb#2249 (review: a buffer used on several streams and freed in the order of the last stream it was used on only synchronises with that stream, \"leading to early destruction\")"),
 [("""        for (int h = 0; h < HALVES; h++) CHECK(cudaStreamWaitEvent(load_, squared_[h], 0));
        CHECK(cudaFreeAsync(ch.values, load_));""",
   """        // Half HALVES - 1 is queued last: its record comes after the others.
        CHECK(cudaStreamWaitEvent(load_, squared_[HALVES - 1], 0));
        CHECK(cudaFreeAsync(ch.values, load_));""")]),
('last-chunk-values-never-freed',
 dict(kind='wrong (the last branch: a leak at the end of the run, the sums right)',
      mistake="the values are freed one chunk late, on the producer, at the next chunk's load (after it waited for the chunk before's squared events), so the last chunk's values, which no next load follows, are never freed",
      **{'why it is wrong': "every chunk but the last is freed in a correct order; the last chunk's values stay allocated in the device's pool after finish, a leak of one buffer a run that the output cannot show and that grows with every pipeline a program runs"},
      source='thesofproject/sof#5609 (buffers freed at one event, unbind, and so never freed on the path where that event does not come: freed at pipeline free instead)'),
 [("""    int start();
    int stage_load(Chunk& ch);""",
   """    float* previous_ = nullptr;   // the last chunk's values, freed at the next load
    int start();
    int stage_load(Chunk& ch);"""),
  ("""int Pipeline::stage_load(Chunk& ch) {
    CHECK(cudaMallocAsync(&ch.values, (size_t)ch.n * sizeof(float), load_));""",
   """int Pipeline::stage_load(Chunk& ch) {
    if (previous_ != nullptr) {
        // The chunk before's squares are queued: free its values here,
        // after the producer waited for both of them.
        for (int h = 0; h < HALVES; h++) CHECK(cudaStreamWaitEvent(load_, squared_[h], 0));
        CHECK(cudaFreeAsync(previous_, load_));
        previous_ = nullptr;
    }
    CHECK(cudaMallocAsync(&ch.values, (size_t)ch.n * sizeof(float), load_));"""),
  ("""    if (half == HALVES - 1) {
        // The values go back on their producer, once it has waited for
        // both readers: both squares are queued by now, so both events
        // hold this chunk's records. The producer's next chunk then
        // follows this chunk's squares: the price of freeing here.
        for (int h = 0; h < HALVES; h++) CHECK(cudaStreamWaitEvent(load_, squared_[h], 0));
        CHECK(cudaFreeAsync(ch.values, load_));
        ch.values = nullptr;
    }""",
   """    if (half == HALVES - 1) previous_ = ch.values;""")]),
('events-made-at-the-first-record',
 dict(kind='wrong (a rule the output does not show: events made inside the stages)',
      mistake="start makes nothing; each stage makes its event the first time it records it (when the handle is still null), so the events are made during chunk 0's stages",
      **{'why it is wrong': "the exercise has the events made once in start, before any stage: a stage makes and destroys none. Making them lazily inside the first chunk's stages puts cudaEventCreate calls among the queued work (a call that can take the context lock and stall the host); main's order happens to make each event before its first wait, so the sums are right, but a stage queued in another order would wait on a null handle"},
      source='sgl-project/sglang#39960 (events created on every wait_stream in the hot path stalled the host on the context lock), rapidsai/kvikio#919 (an event pool so that no event is created in the hot path)'),
 [("""int Pipeline::start() {
    CHECK(cudaEventCreateWithFlags(&loaded_, cudaEventDisableTiming));
    for (int h = 0; h < HALVES; h++) CHECK(cudaEventCreateWithFlags(&squared_[h], cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&reduced_, cudaEventDisableTiming));
    return 0;
}""",
   """// made reports whether ev exists, making it the first time it is asked.
static bool made(cudaEvent_t& ev) {
    return ev != nullptr || cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) == cudaSuccess;
}

int Pipeline::start() {
    return 0;
}"""),
  ("""    CHECK(cudaEventRecord(loaded_, load_));
    return 0;""",
   """    if (!made(loaded_)) return 1;
    CHECK(cudaEventRecord(loaded_, load_));
    return 0;"""),
  ("""    CHECK(cudaEventRecord(squared_[half], s));""",
   """    if (!made(squared_[half])) return 1;
    CHECK(cudaEventRecord(squared_[half], s));"""),
  ("""    CHECK(cudaEventRecord(reduced_, reduce_));""",
   """    if (!made(reduced_)) return 1;
    CHECK(cudaEventRecord(reduced_, reduce_));""")]),
]
