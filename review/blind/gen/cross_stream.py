ID = "cross-stream"
SRC = "exercises/day070/cross_stream.cu"
NOTE = "Correct design: four events; half 1 squares, then waits for half 0's event, frees the values (its order now holds both reads) and records its own event, which so covers both halves: reduce_ waits for that one event alone. Squares freed on reduce_, partial sums on copy_."
def H(kind, mistake, why, source):
    return {"kind": kind, "mistake": mistake, "why it is wrong": why, "source": source}
E = [
("""    // TODO 1: what the chunk holds on the GPU between its stages: a
    // buffer for each kernel's output (see the kernels above; each half
    // has a square of its own).
};""", """    float* values = nullptr;            // generate's output, read by both halves
    float* squared[HALVES] = {};        // square's output, one per half
    float* partial = nullptr;           // sum's output: HALVES * BLOCKS floats
};"""),
("""    // TODO 2: the events the stages record and wait for. start makes
    // them, once; the stages record them again for every chunk (a stage
    // makes and destroys none); finish destroys them.
    int start();""", """    cudaEvent_t loaded_ = nullptr;          // on load_, after generate
    cudaEvent_t squared_[HALVES] = {};      // on work_[h]; half 1's covers half 0's too
    cudaEvent_t reduced_ = nullptr;         // on reduce_, after sum
    int start();"""),
("""int Pipeline::start() {
    return 0;
}""", """int Pipeline::start() {
    CHECK(cudaEventCreateWithFlags(&loaded_, cudaEventDisableTiming));
    for (int h = 0; h < HALVES; h++) CHECK(cudaEventCreateWithFlags(&squared_[h], cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&reduced_, cudaEventDisableTiming));
    return 0;
}"""),
("""int Pipeline::stage_load(Chunk& ch) {
    return 0;
}""", """int Pipeline::stage_load(Chunk& ch) {
    CHECK(cudaMallocAsync(&ch.values, ch.n * sizeof(float), load_));
    generate<<<BLOCKS, THREADS, 0, load_>>>(ch.values, ch.n, ch.index);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(loaded_, load_));
    return 0;
}"""),
("""int Pipeline::stage_work(Chunk& ch, int half) {
    return 0;
}""", """int Pipeline::stage_work(Chunk& ch, int half) {
    const cudaStream_t s = work_[half];
    const int m = ch.n / HALVES;
    CHECK(cudaStreamWaitEvent(s, loaded_, 0));
    CHECK(cudaMallocAsync(&ch.squared[half], m * sizeof(float), s));
    square<<<BLOCKS, THREADS, 0, s>>>(ch.values + half * m, ch.squared[half], m);
    CHECK(cudaGetLastError());
    if (half == HALVES - 1) {
        // The last reader: after its own square, wait for the other
        // halves' squares, so that this stream's order holds every read;
        // then the values can go, and this half's event covers them all.
        for (int h = 0; h < HALVES - 1; h++) CHECK(cudaStreamWaitEvent(s, squared_[h], 0));
        CHECK(cudaFreeAsync(ch.values, s));
        ch.values = nullptr;
    }
    CHECK(cudaEventRecord(squared_[half], s));
    return 0;
}"""),
("""int Pipeline::stage_reduce(Chunk& ch) {
    return 0;
}""", """int Pipeline::stage_reduce(Chunk& ch) {
    const int m = ch.n / HALVES;
    CHECK(cudaStreamWaitEvent(reduce_, squared_[HALVES - 1], 0)); // covers every half
    CHECK(cudaMallocAsync(&ch.partial, HALVES * BLOCKS * sizeof(float), reduce_));
    for (int h = 0; h < HALVES; h++) {
        sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squared[h], m, ch.partial + h * BLOCKS);
        CHECK(cudaGetLastError());
    }
    for (int h = 0; h < HALVES; h++) {
        CHECK(cudaFreeAsync(ch.squared[h], reduce_));
        ch.squared[h] = nullptr;
    }
    CHECK(cudaEventRecord(reduced_, reduce_));
    return 0;
}"""),
("""int Pipeline::stage_copy(Chunk& ch) {
    return 0;
}""", """int Pipeline::stage_copy(Chunk& ch) {
    CHECK(cudaStreamWaitEvent(copy_, reduced_, 0));
    CHECK(cudaMemcpyAsync(ch.result, ch.partial, HALVES * BLOCKS * sizeof(float), cudaMemcpyDeviceToHost, copy_));
    CHECK(cudaFreeAsync(ch.partial, copy_));
    ch.partial = nullptr;
    return 0;
}"""),
("""int Pipeline::finish() {
    return 0;
}""", """int Pipeline::finish() {
    CHECK(cudaEventDestroy(loaded_));
    for (int h = 0; h < HALVES; h++) CHECK(cudaEventDestroy(squared_[h]));
    CHECK(cudaEventDestroy(reduced_));
    return 0;
}"""),
]
CORRECT = (H("correct", "None intended: the last half waits for the other half after its own square, frees the values there and records an event covering both; reduce waits for that one event.", "n/a", "own"), E)
WRONGS = [
 ("record-before-wait",
  H("an event that does not cover what it is taken for",
    "Half 1 records its event right after its square and only then waits for half 0 and frees the values, while reduce_ still waits for half 1's event alone, as if it covered both halves. Half 1's event now marks half 1's square only, so sum may read half 0's squares before half 0 has written them, and the free of half 0's squares on reduce_ is not ordered after half 0's square.",
    "Day 70, 'Exercise: cross-stream' (A buffer with two readers): an event marks what its own stream did before the record, and what it had waited for before it; 'if it records first, it marks half 1 alone'.",
    "own"),
  [("""        for (int h = 0; h < HALVES - 1; h++) CHECK(cudaStreamWaitEvent(s, squared_[h], 0));
        CHECK(cudaFreeAsync(ch.values, s));
        ch.values = nullptr;
    }
    CHECK(cudaEventRecord(squared_[half], s));
    return 0;""", """        CHECK(cudaEventRecord(squared_[half], s)); // this half is done: tell reduce
        for (int h = 0; h < HALVES - 1; h++) CHECK(cudaStreamWaitEvent(s, squared_[h], 0));
        CHECK(cudaFreeAsync(ch.values, s));
        ch.values = nullptr;
        return 0;
    }
    CHECK(cudaEventRecord(squared_[half], s));
    return 0;""")]),
 ("producer-frees-unordered",
  H("free on a stream with no order to the reads",
    "The values are freed on load_, the stream that made them, right after queueing the record of 'loaded', without load_ waiting for the two squares. load_'s order holds generate but not the reads on the work streams, so the pool may give the memory to the next chunk's values while this chunk's squares still read it; the sums often come out right anyway.",
    "Day 70, 'Sharing memory between streams' and 'A buffer with two readers': freed 'on the producer, after it waited for both'; a free on a stream with no order to the use can run while the kernel still reads the memory.",
    "https://github.com/kokkos/kokkos/pull/9433 (an async free on a stream not ordered after the use: 'wrong but it still usually works')"),
  [("""    CHECK(cudaEventRecord(loaded_, load_));
    return 0;""", """    CHECK(cudaEventRecord(loaded_, load_));
    CHECK(cudaFreeAsync(ch.values, load_)); // the stream that allocated it frees it
    return 0;"""),
   ("""        CHECK(cudaFreeAsync(ch.values, s));
        ch.values = nullptr;
""", """        ch.values = nullptr;
""")]),
 ("memset-legacy-stream",
  H("race with the legacy default stream",
    "stage_reduce clears the partial sums with cudaMemset before the sum kernels, although sum writes every slot. cudaMemset runs on the legacy default stream, which the five non-blocking streams never wait for, so the clear is ordered neither after the buffer's allocation on reduce_ nor before the sums: it may wipe sums already written, and it is a synchronous memset on the default stream.",
    "Day 70, 'Sharing memory between streams': memory allocated on a stream is ready in that stream; another stream must wait for an event first. The default stream is not ordered with non-blocking streams.",
    "https://github.com/cupy/cupy/issues/3777 (what the legacy default stream orders and what it does not)"),
  [("""    CHECK(cudaMallocAsync(&ch.partial, HALVES * BLOCKS * sizeof(float), reduce_));
""", """    CHECK(cudaMallocAsync(&ch.partial, HALVES * BLOCKS * sizeof(float), reduce_));
    CHECK(cudaMemset(ch.partial, 0, HALVES * BLOCKS * sizeof(float))); // sums start from 0
""")]),
 ("free-partial-before-record",
  H("free before the last use, on another stream",
    "stage_reduce frees the partial sums on reduce_ right after the sum kernels, before recording 'reduced', and copy_ waits for that event and then copies them. The copy on copy_ is then queued after the buffer's free in reduce_'s order: a use after free that usually prints the right sums because nothing allocates in between.",
    "Day 70, 'Sharing memory between streams': the free must come after the buffer's last use in the freeing stream's order; the copy back is the last use, on copy_.",
    "own"),
  [("""    CHECK(cudaEventRecord(reduced_, reduce_));
    return 0;""", """    CHECK(cudaFreeAsync(ch.partial, reduce_)); // reduce made it, reduce frees it
    CHECK(cudaEventRecord(reduced_, reduce_));
    return 0;"""),
   ("""    CHECK(cudaFreeAsync(ch.partial, copy_));
    ch.partial = nullptr;""", """    ch.partial = nullptr;""")]),
 ("event-per-chunk",
  H("events made and destroyed in the stages",
    "To avoid 'overwriting' an event still waited for, each stage creates a fresh event for every chunk and destroys it right after the wait is queued. The ordering is right and the sums are right, but the pipeline makes four events per chunk (32 by default, 52 on 13 chunks) on the hot path instead of four in all, against the exercise's rule that no stage makes or destroys one.",
    "Day 70, 'Exercise: cross-stream' (One event, recorded for every chunk): a wait takes the event's mark when it is queued, so one event per hand-off serves every chunk; events made once in start, destroyed in finish.",
    "own"),
  [("""    CHECK(cudaMallocAsync(&ch.values, ch.n * sizeof(float), load_));""", """    CHECK(cudaEventCreateWithFlags(&loaded_, cudaEventDisableTiming)); // fresh for this chunk
    CHECK(cudaMallocAsync(&ch.values, ch.n * sizeof(float), load_));"""),
   ("""    CHECK(cudaStreamWaitEvent(s, loaded_, 0));
    CHECK(cudaMallocAsync(&ch.squared[half], m * sizeof(float), s));""", """    CHECK(cudaStreamWaitEvent(s, loaded_, 0));
    if (half == HALVES - 1) CHECK(cudaEventDestroy(loaded_)); // both halves have queued their wait
    CHECK(cudaEventCreateWithFlags(&squared_[half], cudaEventDisableTiming));
    CHECK(cudaMallocAsync(&ch.squared[half], m * sizeof(float), s));"""),
   ("""        for (int h = 0; h < HALVES - 1; h++) CHECK(cudaStreamWaitEvent(s, squared_[h], 0));""",
    """        for (int h = 0; h < HALVES - 1; h++) {
            CHECK(cudaStreamWaitEvent(s, squared_[h], 0));
            CHECK(cudaEventDestroy(squared_[h]));
        }"""),
   ("""    CHECK(cudaStreamWaitEvent(reduce_, squared_[HALVES - 1], 0)); // covers every half""",
    """    CHECK(cudaStreamWaitEvent(reduce_, squared_[HALVES - 1], 0)); // covers every half
    CHECK(cudaEventDestroy(squared_[HALVES - 1]));"""),
   ("""        ch.squared[h] = nullptr;
    }
    CHECK(cudaEventRecord(reduced_, reduce_));""", """        ch.squared[h] = nullptr;
    }
    CHECK(cudaEventCreateWithFlags(&reduced_, cudaEventDisableTiming));
    CHECK(cudaEventRecord(reduced_, reduce_));"""),
   ("""    CHECK(cudaStreamWaitEvent(copy_, reduced_, 0));""", """    CHECK(cudaStreamWaitEvent(copy_, reduced_, 0));
    CHECK(cudaEventDestroy(reduced_));"""),
   ("""int Pipeline::start() {
    CHECK(cudaEventCreateWithFlags(&loaded_, cudaEventDisableTiming));
    for (int h = 0; h < HALVES; h++) CHECK(cudaEventCreateWithFlags(&squared_[h], cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&reduced_, cudaEventDisableTiming));
    return 0;
}""", """int Pipeline::start() {
    return 0; // each chunk makes its own events
}"""),
   ("""    CHECK(cudaEventDestroy(loaded_));
    for (int h = 0; h < HALVES; h++) CHECK(cudaEventDestroy(squared_[h]));
    CHECK(cudaEventDestroy(reduced_));
    return 0;""", """    return 0; // the stages destroyed them"""),
  ]),
]
