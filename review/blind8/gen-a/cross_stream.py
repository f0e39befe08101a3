"""cross-stream: the correct design and four wrong files (blind8, first half)."""
from mk import student, edit, header, write, wrong

EX, EXT = "cross-stream", "cu"
t = student("exercises/day070/cross_stream.cu")

t = edit(t, """    // TODO 1: what the chunk holds on the GPU between its stages: a
    // buffer for each kernel's output (see the kernels above; each half
    // has a square of its own).
};""", """    float* values = nullptr;             // generate's output, on load_
    float* squares[HALVES] = {};         // each half's square, on work_[h]
    float* partial = nullptr;            // sum's output: HALVES * BLOCKS floats, on reduce_
};

// RING is how many of each event the pipeline keeps: chunk c uses slot
// c % RING. Any number is right, since every wait on chunk c's record is
// queued before chunk c + 1's stages; two keep neighbouring chunks apart.
const int RING = 2;""")

t = edit(t, """    // TODO 2: the events the stages record and wait for. start makes
    // them, once; the stages record them again for every chunk (a stage
    // makes and destroys none); finish destroys them.
    int start();""", """    cudaEvent_t loaded_[RING];            // on load_: after generate
    cudaEvent_t squared_[HALVES][RING];   // on work_[h]: after half h's square
    cudaEvent_t reduced_[RING];           // on reduce_: after both sums
    int start();""")

t = edit(t, """int Pipeline::start() {
    return 0;
}""", """int Pipeline::start() {
    for (int k = 0; k < RING; k++) {
        CHECK(cudaEventCreateWithFlags(&loaded_[k], cudaEventDisableTiming));
        for (int h = 0; h < HALVES; h++) CHECK(cudaEventCreateWithFlags(&squared_[h][k], cudaEventDisableTiming));
        CHECK(cudaEventCreateWithFlags(&reduced_[k], cudaEventDisableTiming));
    }
    return 0;
}""")

t = edit(t, """int Pipeline::stage_load(Chunk& ch) {
    return 0;
}""", """int Pipeline::stage_load(Chunk& ch) {
    const int k = ch.index % RING;
    CHECK(cudaMallocAsync(&ch.values, (size_t)ch.n * sizeof(float), load_));
    generate<<<BLOCKS, THREADS, 0, load_>>>(ch.values, ch.n, ch.index);
    CHECK(cudaEventRecord(loaded_[k], load_));
    return 0;
}""")

t = edit(t, """int Pipeline::stage_work(Chunk& ch, int half) {
    return 0;
}""", """// The values are freed on the first reader, work_[0], once it has waited
// for the second half's square: its order then holds both reads. That
// wait and free are queued here, with half 1's stage, after half 1's
// record (main queues half 0 first).
int Pipeline::stage_work(Chunk& ch, int half) {
    const int k = ch.index % RING;
    const int m = ch.n / HALVES;
    cudaStream_t s = work_[half];
    CHECK(cudaStreamWaitEvent(s, loaded_[k], 0));
    CHECK(cudaMallocAsync(&ch.squares[half], (size_t)m * sizeof(float), s));
    square<<<BLOCKS, THREADS, 0, s>>>(ch.values + (size_t)half * m, ch.squares[half], m);
    CHECK(cudaEventRecord(squared_[half][k], s));
    if (half == HALVES - 1) {
        CHECK(cudaStreamWaitEvent(work_[0], squared_[half][k], 0));
        CHECK(cudaFreeAsync(ch.values, work_[0]));
        ch.values = nullptr;
    }
    return 0;
}""")

t = edit(t, """int Pipeline::stage_reduce(Chunk& ch) {
    return 0;
}""", """int Pipeline::stage_reduce(Chunk& ch) {
    const int k = ch.index % RING;
    const int m = ch.n / HALVES;
    CHECK(cudaMallocAsync(&ch.partial, HALVES * BLOCKS * sizeof(float), reduce_));
    for (int h = 0; h < HALVES; h++) CHECK(cudaStreamWaitEvent(reduce_, squared_[h][k], 0));
    for (int h = 0; h < HALVES; h++) {
        sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squares[h], m, ch.partial + h * BLOCKS);
        CHECK(cudaFreeAsync(ch.squares[h], reduce_));
        ch.squares[h] = nullptr;
    }
    CHECK(cudaEventRecord(reduced_[k], reduce_));
    return 0;
}""")

t = edit(t, """int Pipeline::stage_copy(Chunk& ch) {
    return 0;
}""", """int Pipeline::stage_copy(Chunk& ch) {
    const int k = ch.index % RING;
    CHECK(cudaStreamWaitEvent(copy_, reduced_[k], 0));
    CHECK(cudaMemcpyAsync(ch.result, ch.partial, HALVES * BLOCKS * sizeof(float), cudaMemcpyDeviceToHost, copy_));
    CHECK(cudaFreeAsync(ch.partial, copy_));
    ch.partial = nullptr;
    return 0;
}""")

t = edit(t, """int Pipeline::finish() {
    return 0;
}""", """int Pipeline::finish() {
    for (int k = 0; k < RING; k++) {
        CHECK(cudaEventDestroy(loaded_[k]));
        for (int h = 0; h < HALVES; h++) CHECK(cudaEventDestroy(squared_[h][k]));
        CHECK(cudaEventDestroy(reduced_[k]));
    }
    return 0;
}""")

write(EX, "correct.cu", header(
    "correct",
    "none: each hand-off's event in a ring of two (chunk c uses slot c % 2), all made in start; the values freed on the first reader, work_[0], after it waited for half 1's squared event (queued with half 1's stage, after that record); the squares freed on reduce_ after their sums, the partial sums on copy_ after the copy.",
    "none: it is correct.",
    "none (written from the lesson and the student file)."), t)
correct = t

wrong(EX, EXT, correct, "partials-sized-for-one-half",
      "wrong (the record only: the second half's sums are written and copied past the end of their allocation)",
      "stage_reduce allocates the partial sums as BLOCKS floats, one half's worth, though both halves' sums go there (half 1's from partial + BLOCKS) and the copy brings back HALVES * BLOCKS.",
      "half 1's sum writes 32 bytes past the allocation and the copy reads them back from there; the pool rounds small allocations up, so nothing else is overwritten and the sums print right, but the program writes memory it never allocated.",
      "own (a buffer sized for one half where both halves' results go); JuliaGPU/CUDA.jl#780 (an out-of-bounds access that only compute-sanitizer's check of the allocation's bounds reported)",
      [("""    CHECK(cudaMallocAsync(&ch.partial, HALVES * BLOCKS * sizeof(float), reduce_));""",
        """    CHECK(cudaMallocAsync(&ch.partial, BLOCKS * sizeof(float), reduce_));""")])

wrong(EX, EXT, correct, "second-ring-slot-never-destroyed",
      "wrong (leak: half of the pipeline's events are never destroyed)",
      "when the events became rings of two, finish kept its old body: it destroys slot 0 of each event and not slot 1.",
      "every event start makes must be destroyed by finish; four events (loaded, both squared, reduced of slot 1) outlive the pipeline; the sums are right and nothing fails, so only a count of created and destroyed events shows it.",
      "tromp/cuckoo#69 (cudaEventCreate without the matching cudaEventDestroy: events leaked), llnl/camp#71 (event wrappers that create events and never destroy them), ROCm/composable_kernel#1554 (a missing hipEventDestroy for some of the events made)",
      [("""int Pipeline::finish() {
    for (int k = 0; k < RING; k++) {
        CHECK(cudaEventDestroy(loaded_[k]));
        for (int h = 0; h < HALVES; h++) CHECK(cudaEventDestroy(squared_[h][k]));
        CHECK(cudaEventDestroy(reduced_[k]));
    }
    return 0;
}""", """int Pipeline::finish() {
    CHECK(cudaEventDestroy(loaded_[0]));
    for (int h = 0; h < HALVES; h++) CHECK(cudaEventDestroy(squared_[h][0]));
    CHECK(cudaEventDestroy(reduced_[0]));
    return 0;
}""")])

wrong(EX, EXT, correct, "load-waits-for-the-previous-copy",
      "wrong (the stages of different chunks never overlap; sums right)",
      "to bound the memory in flight to one chunk, the load stream waits for an event recorded after the previous chunk's copy before it generates the next chunk.",
      "the producer then follows the last consumer of the previous chunk: chunk c + 1's generate starts only when chunk c has been squared, summed and copied back, so no stage of one chunk runs beside a stage of another; the run is correct and slower, the overlap the exercise asks for gone.",
      "hw-native-sys/simpler#1853 (run N + 1 submitted only after run N drained: device work strictly serial, only its preparation overlapped), the lesson's own note that freeing or waiting on a producer makes its next chunk wait for this chunk's readers",
      [("""    cudaEvent_t reduced_[RING];           // on reduce_: after both sums""", """    cudaEvent_t reduced_[RING];           // on reduce_: after both sums
    cudaEvent_t copied_ = nullptr;        // on copy_: after the last chunk's copy"""),
       ("""        CHECK(cudaEventCreateWithFlags(&reduced_[k], cudaEventDisableTiming));
    }
    return 0;""", """        CHECK(cudaEventCreateWithFlags(&reduced_[k], cudaEventDisableTiming));
    }
    CHECK(cudaEventCreateWithFlags(&copied_, cudaEventDisableTiming));
    return 0;"""),
       ("""    CHECK(cudaMallocAsync(&ch.values, (size_t)ch.n * sizeof(float), load_));""", """    // One chunk on the GPU at a time: wait for the previous one's copy.
    CHECK(cudaStreamWaitEvent(load_, copied_, 0));
    CHECK(cudaMallocAsync(&ch.values, (size_t)ch.n * sizeof(float), load_));"""),
       ("""    CHECK(cudaFreeAsync(ch.partial, copy_));
    ch.partial = nullptr;""", """    CHECK(cudaFreeAsync(ch.partial, copy_));
    ch.partial = nullptr;
    CHECK(cudaEventRecord(copied_, copy_));"""),
       ("""        CHECK(cudaEventDestroy(reduced_[k]));
    }
    return 0;""", """        CHECK(cudaEventDestroy(reduced_[k]));
    }
    CHECK(cudaEventDestroy(copied_));
    return 0;""")])

wrong(EX, EXT, correct, "reduced-recorded-after-the-first-sum",
      "wrong (race: the copy may read half 1's partial sums before they are written)",
      "stage_reduce records reduced right after half 0's sum, inside the loop, so that the copy 'can start as soon as there are sums to copy'; half 1's sum is queued after the record.",
      "the copy waits for a mark that covers half 0's sum only, and copies all 16 partial sums: half 1's may still be being written (then its sum prints wrong), and the partial buffer is freed on copy_ while reduce_ may still write it.",
      "own (a record moved up so that the next stage starts early); facebookresearch/HolisticTraceAnalysis#117 (an event marks the work queued on its stream before the record: a dependency on a kernel launched after it is not one)",
      [("""        sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squares[h], m, ch.partial + h * BLOCKS);
        CHECK(cudaFreeAsync(ch.squares[h], reduce_));
        ch.squares[h] = nullptr;
    }
    CHECK(cudaEventRecord(reduced_[k], reduce_));""", """        sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squares[h], m, ch.partial + h * BLOCKS);
        if (h == 0) CHECK(cudaEventRecord(reduced_[k], reduce_));  // the copy may start
        CHECK(cudaFreeAsync(ch.squares[h], reduce_));
        ch.squares[h] = nullptr;
    }""")])
