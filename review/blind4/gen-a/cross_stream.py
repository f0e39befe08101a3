from mk import build

CORRECT = dict(
    kind='correct (a design of its own)',
    mistake='none. Four events, one per hand-off (generated, squared[0], squared[1], summed), each recorded again for every chunk. The values are freed on the reduce stream, further down, once it has waited for both halves\' events; the squares on the reduce stream after sum; the partial sums on the copy stream after their copy. No producer waits for its consumers.',
    **{'why it is wrong': 'it is not: every stream that reads a buffer first waits for an event recorded after the buffer was written (and allocated), every free comes after the last read in the freeing stream\'s order, and every wait is queued before the next chunk records the same event again.'},
    source='the lesson (day 70, "A buffer with two readers": a stream further down that waited for both); the Programming Guide, "Stream Ordered Memory Allocator", "Freeing Memory" (allocate on one stream, use on a second, free on a third after events).',
)

C = [
("""    // TODO 1: what the chunk holds on the GPU between its stages: a
    // buffer for each kernel's output (see the kernels above; each half
    // has a square of its own).
};""",
"""    // TODO 1: what the chunk holds on the GPU between its stages: a
    // buffer for each kernel's output (see the kernels above; each half
    // has a square of its own).
    float* raw;              // generate's values, n floats
    float* squared[HALVES];  // each half's squares, n / HALVES floats
    float* partial;          // HALVES * BLOCKS partial sums, half 0's first
};"""),
("""    // TODO 2: the events the stages record and wait for. start makes
    // them, once; the stages record them again for every chunk (a stage
    // makes and destroys none); finish destroys them.
    int start();""",
"""    // TODO 2: the events the stages record and wait for. start makes
    // them, once; the stages record them again for every chunk (a stage
    // makes and destroys none); finish destroys them.
    cudaEvent_t generated_ = nullptr;         // load_: the values are written
    cudaEvent_t squared_[HALVES] = {};        // work_[h]: half h's squares are written
    cudaEvent_t summed_ = nullptr;            // reduce_: the partial sums are written
    int start();"""),
("""int Pipeline::start() {
    return 0;
}""",
"""int Pipeline::start() {
    CHECK(cudaEventCreateWithFlags(&generated_, cudaEventDisableTiming));
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
    CHECK(cudaEventRecord(generated_, load_));
    return 0;
}"""),
("""int Pipeline::stage_work(Chunk& ch, int half) {
    return 0;
}""",
"""int Pipeline::stage_work(Chunk& ch, int half) {
    cudaStream_t s = work_[half];
    const int m = ch.n / HALVES;
    CHECK(cudaStreamWaitEvent(s, generated_, 0));
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
    // Both reads of the values are now before this point in reduce_'s
    // order: they can go here, further down than either reader.
    CHECK(cudaFreeAsync(ch.raw, reduce_));
    CHECK(cudaMallocAsync(&ch.partial, HALVES * BLOCKS * sizeof(float), reduce_));
    for (int h = 0; h < HALVES; h++) {
        sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squared[h], m, ch.partial + h * BLOCKS);
        CHECK(cudaGetLastError());
    }
    for (int h = 0; h < HALVES; h++) CHECK(cudaFreeAsync(ch.squared[h], reduce_));
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
    return 0;
}"""),
("""int Pipeline::finish() {
    return 0;
}""",
"""int Pipeline::finish() {
    CHECK(cudaEventDestroy(generated_));
    for (int h = 0; h < HALVES; h++) CHECK(cudaEventDestroy(squared_[h]));
    CHECK(cudaEventDestroy(summed_));
    return 0;
}"""),
]

W = []

W.append(('record-without-stream', dict(
    kind='an event recorded on the wrong stream',
    mistake='stage_load records the generated event with cudaEventRecord(generated_), leaving out the stream argument.',
    **{'why it is wrong': 'the stream argument defaults to 0, the legacy default stream, which the non-blocking load stream does not synchronise with: the event completes as soon as the default stream\'s own (empty) work is done, and the work streams square values generate has not written yet.'},
    source='the lesson (day 68: an event recorded with cudaEventRecord(event) is on the legacy default stream, which the non-blocking streams never wait for); supranational/sppark#81 (the null stream is the legacy default stream, used nowhere else in the program).',
), [
("""    CHECK(cudaEventRecord(generated_, load_));""",
"""    CHECK(cudaEventRecord(generated_));"""),
]))

W.append(('copy-waits-wrong-event', dict(
    kind='a wait for the wrong event',
    mistake='stage_copy waits for half 1\'s squared event instead of the summed event (a copy-and-paste slip from stage_reduce).',
    **{'why it is wrong': 'the copy stream is then ordered after the squares but not after sum, nor after the partial sums\' allocation on the reduce stream: it may copy the partial sums before sum has written them, and free them while sum still writes.'},
    source='the lesson (day 70: "check that the waiting stream waits for a record made after the work it needs"); NVlabs/cuda-oxide#619 (a free whose stream is not ordered after the last use).',
), [
("""    CHECK(cudaStreamWaitEvent(copy_, summed_, 0));""",
"""    CHECK(cudaStreamWaitEvent(copy_, squared_[HALVES - 1], 0));"""),
]))

W.append(('load-polls-previous-chunk', dict(
    kind='a host-side busy wait',
    mistake='stage_load, to bound the memory in flight, spins on cudaEventQuery(summed_) until the previous chunk\'s sum is done before it allocates the next chunk\'s values.',
    **{'why it is wrong': 'a loop on cudaEventQuery is a host wait: the exercise forbids any host wait in a stage. The host stops at every chunk until the previous chunk has gone through three stages, so load, work and reduce of different chunks no longer overlap; the sums are still right.'},
    source='NVIDIA Developer Forums, "CPU Spins while waiting for GPU to finish computation" (a host that spins instead of queueing more work); the lesson (day 68: "a loop on cudaEventQuery" waits like cudaEventSynchronize).',
), [
("""int Pipeline::stage_load(Chunk& ch) {
    CHECK(cudaMallocAsync(&ch.raw, (size_t)ch.n * sizeof(float), load_));""",
"""int Pipeline::stage_load(Chunk& ch) {
    // At most two chunks' values at once: the previous chunk's sum first.
    while (cudaEventQuery(summed_) == cudaErrorNotReady) {
    }
    CHECK(cudaMallocAsync(&ch.raw, (size_t)ch.n * sizeof(float), load_));"""),
]))

W.append(('record-before-square', dict(
    kind='an event recorded before the work it must mark',
    mistake='stage_work records half h\'s squared event right after the wait and the allocation, before the square kernel is launched.',
    **{'why it is wrong': 'an event marks the work queued on its stream before the record: the reduce stream\'s wait then covers the allocation but not the square, so sum may read squares not yet written, and the values are freed on the reduce stream while square still reads them.'},
    source='the runtime API reference, cudaEventRecord ("Captures in event the contents of stream at the time of this call"); the lesson (day 70: "record after the work that must come first, wait before the work that needs it").',
), [
("""    CHECK(cudaMallocAsync(&ch.squared[half], (size_t)m * sizeof(float), s));
    square<<<BLOCKS, THREADS, 0, s>>>(ch.raw + (size_t)half * m, ch.squared[half], m);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(squared_[half], s));""",
"""    CHECK(cudaMallocAsync(&ch.squared[half], (size_t)m * sizeof(float), s));
    CHECK(cudaEventRecord(squared_[half], s));
    square<<<BLOCKS, THREADS, 0, s>>>(ch.raw + (size_t)half * m, ch.squared[half], m);
    CHECK(cudaGetLastError());"""),
]))

W.append(('free-before-waits', dict(
    kind='a free placed before the waits that order it',
    mistake='stage_reduce frees the values on the reduce stream first, then waits for the two squared events.',
    **{'why it is wrong': 'a wait orders only the work queued after it: the free sits before both waits in the reduce stream\'s order, so it can run while either square still reads the values, and the pool may give the memory to the next chunk\'s generate.'},
    source='the Programming Guide, "Stream Ordered Memory Allocator", "Freeing Memory" (the free on a third stream after it waited for an event recorded after the use); NVlabs/cuda-oxide#619.',
), [
("""    for (int h = 0; h < HALVES; h++) CHECK(cudaStreamWaitEvent(reduce_, squared_[h], 0));
    // Both reads of the values are now before this point in reduce_'s
    // order: they can go here, further down than either reader.
    CHECK(cudaFreeAsync(ch.raw, reduce_));""",
"""    CHECK(cudaFreeAsync(ch.raw, reduce_));   // the reduce stream is the last stage to see them
    for (int h = 0; h < HALVES; h++) CHECK(cudaStreamWaitEvent(reduce_, squared_[h], 0));"""),
]))

build('cross-stream', 'exercises/day070/cross_stream.cu', CORRECT, C, W)
