import sys; sys.path.insert(0, '.')
from mk import build
src = open('../../exercises/day070/cross_stream.cu').read()
D = 'cross-stream/'
correct = [
("""    // TODO 1: what the chunk holds on the GPU between its stages: a
    // buffer for each kernel's output (see the kernels above; each half
    // has a square of its own).
};""",
"""    float* raw = nullptr;               // generate's values
    float* squared[HALVES] = {};        // each half's squares
    float* partial = nullptr;           // HALVES * BLOCKS partial sums
};"""),
("""    // TODO 2: the events the stages record and wait for. start makes
    // them, once; the stages record them again for every chunk (a stage
    // makes and destroys none); finish destroys them.
    int start();""",
"""    cudaEvent_t loaded_ = nullptr;           // on load_, after generate
    cudaEvent_t squared_[HALVES] = {};       // on work_[h], after its square
    cudaEvent_t summed_ = nullptr;           // on reduce_, after sum
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
    CHECK(cudaMallocAsync(&ch.raw, (size_t)ch.n * sizeof(float), load_));
    generate<<<BLOCKS, THREADS, 0, load_>>>(ch.raw, ch.n, ch.index);
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
    CHECK(cudaMallocAsync(&ch.squared[half], (size_t)m * sizeof(float), s));
    square<<<BLOCKS, THREADS, 0, s>>>(ch.raw + (size_t)half * m, ch.squared[half], m);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(squared_[half], s));
    return 0;
}"""),
("""int Pipeline::stage_reduce(Chunk& ch) {
    return 0;
}""",
"""int Pipeline::stage_reduce(Chunk& ch) {
    const int m = ch.n / HALVES;
    for (int h = 0; h < HALVES; h++) CHECK(cudaStreamWaitEvent(reduce_, squared_[h], 0));
    // Both reads of the values are in reduce_'s order now.
    CHECK(cudaFreeAsync(ch.raw, reduce_));
    ch.raw = nullptr;
    CHECK(cudaMallocAsync(&ch.partial, HALVES * BLOCKS * sizeof(float), reduce_));
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
H = """kind: correct
mistake: none: four events made once without timing (loaded on load_, one squared per
  half, summed on reduce_), each stage allocating its output on its own stream after its
  waits; the values freed on reduce_ after it waited for both halves, the squares freed
  on reduce_ after the sums, the partial sums freed on copy_ after the copy.
why it is wrong: it is not (lesson day 70, "A buffer with two readers": "on a stream
  further down that waited for both (reduce_)").
source: own"""
body = build(src, D + 'correct.cu', H, correct)
def wrong(slug, header, pairs):
    build(body, D + 'wrong-' + slug + '.cu', header, pairs)

wrong('one-squared-event', """kind: wrong (race the output does not show)
mistake: the two halves record one shared "squared" event, and reduce_ waits for it
  once, taking it to stand for both squares.
why it is wrong: a record overwrites the event's captured state, so reduce_ waits for
  the second half's square only (lesson day 70, "One event, recorded for every chunk":
  "an event that both halves record marks only the second half's square"; runtime API
  cudaEventRecord). Half 0 is queued first and its kernel is as long as half 1's, so it
  has usually ended when reduce_ reads its squares, and frees the values.
source: https://cs.cmu.edu/afs/cs/academic/class/15668-s11/www/cuda-doc/html/group__CUDART__STREAM_gfe68d207dc965685d92d3f03d77b0876.html
  (a stream waits only for the most recent record of the event)""", [
("""    cudaEvent_t squared_[HALVES] = {};       // on work_[h], after its square""",
"""    cudaEvent_t squared_ = nullptr;          // on either work stream, after its square"""),
("""    for (int h = 0; h < HALVES; h++) CHECK(cudaEventCreateWithFlags(&squared_[h], cudaEventDisableTiming));""",
"""    CHECK(cudaEventCreateWithFlags(&squared_, cudaEventDisableTiming));"""),
("""    CHECK(cudaEventRecord(squared_[half], s));""",
"""    CHECK(cudaEventRecord(squared_, s));"""),
("""    for (int h = 0; h < HALVES; h++) CHECK(cudaStreamWaitEvent(reduce_, squared_[h], 0));""",
"""    CHECK(cudaStreamWaitEvent(reduce_, squared_, 0)); // the last half to square"""),
("""    for (int h = 0; h < HALVES; h++) CHECK(cudaEventDestroy(squared_[h]));""",
"""    CHECK(cudaEventDestroy(squared_));"""),
])

wrong('free-values-on-second-reader', """kind: wrong (early free the output does not show)
mistake: the values are freed on work_[1] right after half 1's square, taking the second
  reader queued for the last reader, without waiting for half 0's event.
why it is wrong: the two work streams run side by side, so work_[1]'s order does not
  include half 0's read (lesson day 70, "A buffer with two readers": free "on one reader,
  after it waited for an event the other recorded after its read"). The pool may hand
  the memory to the next allocation while half 0's square still reads it; the two
  squares take as long, so half 0 has usually finished.
source: own""", [
("""    CHECK(cudaEventRecord(squared_[half], s));
    return 0;""",
"""    CHECK(cudaEventRecord(squared_[half], s));
    if (half == HALVES - 1) {
        // The last reader queued: the values are done with.
        CHECK(cudaFreeAsync(ch.raw, s));
        ch.raw = nullptr;
    }
    return 0;"""),
("""    // Both reads of the values are in reduce_'s order now.
    CHECK(cudaFreeAsync(ch.raw, reduce_));
    ch.raw = nullptr;
""", ""),
])

wrong('copy-polls-summed', """kind: wrong (a host wait by polling)
mistake: stage_copy spins on cudaEventQuery(summed_) until the sums are done and then
  queues the copy, instead of making copy_ wait for the event.
why it is wrong: the lesson forbids any host wait in a stage ("Nothing in a stage may
  wait on the host"); a loop on cudaEventQuery is a wait like cudaEventSynchronize
  (lesson day 68: "so would a loop on cudaEventQuery"). The chunks still come out right,
  only the stages of later chunks are queued late. No cudaStreamSynchronize,
  cudaEventSynchronize or cudaDeviceSynchronize is called.
source: own (issue 36 names the kind: host waits by polling)""", [
("""    CHECK(cudaStreamWaitEvent(copy_, summed_, 0));
    CHECK(cudaMemcpyAsync(""",
"""    cudaError_t q;
    while ((q = cudaEventQuery(summed_)) == cudaErrorNotReady) {}
    CHECK(q);
    CHECK(cudaMemcpyAsync("""),
])

wrong('squares-allocated-on-reduce', """kind: wrong (use before allocation the output may not show)
mistake: each half's squares are allocated with cudaMallocAsync on reduce_ (the stream
  that will free them, "allocate and free on one stream") and written at once on the
  work stream, which never waits for reduce_.
why it is wrong: memory from cudaMallocAsync on stream a is ready in a's order only; using
  it on b needs b to wait for an event recorded on a after the allocation (lesson day
  70, "Sharing memory between streams"; compute-sanitizer calls the other case
  "use-before-alloc"). reduce_ may still be summing the previous chunk, in memory the
  pool can hand to this allocation.
source: https://github.com/rapidsai/rmm/issues/2156 (RMM's allocate_sync allocated in one
  stream's order and the memory was used and freed on a non-blocking stream that never
  waited for it; compute-sanitizer --track-stream-ordered-races reports it)""", [
("""    CHECK(cudaMallocAsync(&ch.squared[half], (size_t)m * sizeof(float), s));""",
"""    CHECK(cudaMallocAsync(&ch.squared[half], (size_t)m * sizeof(float), reduce_));"""),
])
