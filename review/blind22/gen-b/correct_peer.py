import sys; sys.path.insert(0, "gen-b")
from fill import fill
H = ["kind: correct",
     "mistake: none. Design: setup makes, device by device in one loop, a pinned pool located there, sets its release threshold to the most (the pool keeps what it reserved), makes it current, then grants device 1 read-write on pool[0]; two events made once (ready on device 0, pulled on device 1); device 1 pulls: s[1] waits for ready, w1 by cudaMallocFromPoolAsync from pool[1] on s[1], filled by cudaMemcpyAsync (DeviceToDevice, through unified addresses) on s[1], and s[0] waits for pulled; each round makes a FRESH event on device 1, records it behind produce (the chunk from pool[0] by cudaMallocFromPoolAsync on s[1]), queues s[0]'s wait on it and DESTROYS it in the same round, once the wait is queued; the chunk is freed on s[0] behind the reduce",
     "why it is wrong: -",
     "source: own"]
E = [("""    // Yours: whatever else you keep between the calls below.
    // TODO: write this part
""", """    // Yours: whatever else you keep between the calls below.
    cudaEvent_t ready;    // device 0: the weights are made
    cudaEvent_t pulled;   // device 1: its copy of them is taken
"""),
("""void setup(Two& t) {
    // TODO: your code
    (void)t;
}""", """void setup(Two& t) {
    for (int d = 0; d < 2; d++) {
        CHECK(cudaSetDevice(d));
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = d;
        CHECK(cudaMemPoolCreate(&t.pool[d], &props));
        unsigned long long keep = ~0ull;   // what the pool reserved stays reserved between rounds
        CHECK(cudaMemPoolSetAttribute(t.pool[d], cudaMemPoolAttrReleaseThreshold, &keep));
        CHECK(cudaDeviceSetMemPool(d, t.pool[d]));
    }
    cudaMemAccessDesc desc = {};
    desc.location.type = cudaMemLocationTypeDevice;
    desc.location.id = 1;
    desc.flags = cudaMemAccessFlagsProtReadWrite;
    CHECK(cudaMemPoolSetAccess(t.pool[0], &desc, 1));
    CHECK(cudaSetDevice(1));
    CHECK(cudaEventCreateWithFlags(&t.pulled, cudaEventDisableTiming));
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventCreateWithFlags(&t.ready, cudaEventDisableTiming));
}"""),
("""    int* w1 = nullptr;
    // TODO: your code
    (void)t;
    (void)w0;
    (void)bytes;
    return w1;""", """    int* w1 = nullptr;
    CHECK(cudaEventRecord(t.ready, t.s[0]));   // behind init_weights
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(t.s[1], t.ready, 0));
    CHECK(cudaMallocFromPoolAsync((void**)&w1, bytes, t.pool[1], t.s[1]));
    CHECK(cudaMemcpyAsync(w1, w0, bytes, cudaMemcpyDeviceToDevice, t.s[1]));
    CHECK(cudaEventRecord(t.pulled, t.s[1]));
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamWaitEvent(t.s[0], t.pulled, 0));   // w0 is freed on s[0] later
    return w1;"""),
("""void one_round(Two& t, int r, const int* w1, size_t n, unsigned long long* sum) {
    // TODO: your code
    (void)t;
    (void)r;
    (void)w1;
    (void)n;
    (void)sum;
}""", """void one_round(Two& t, int r, const int* w1, size_t n, unsigned long long* sum) {
    int* chunk = nullptr;
    cudaEvent_t produced = nullptr;   // this round's, made on device 1
    CHECK(cudaSetDevice(1));
    CHECK(cudaEventCreateWithFlags(&produced, cudaEventDisableTiming));
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[1]));
    produce<<<kBlocks, kThreads, 0, t.s[1]>>>(chunk, w1, n, r, kProduceNs);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(produced, t.s[1]));
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamWaitEvent(t.s[0], produced, 0));
    reduce<<<kBlocks, kThreads, 0, t.s[0]>>>(chunk, n, sum);
    CHECK(cudaGetLastError());
    CHECK(cudaFreeAsync(chunk, t.s[0]));
    CHECK(cudaSetDevice(1));
    CHECK(cudaEventDestroy(produced));   // its one wait is queued
    CHECK(cudaSetDevice(0));
}"""),
("""void finish(Two& t, int* w1) {
    // TODO: your code
    (void)t;
    (void)w1;
}""", """void finish(Two& t, int* w1) {
    CHECK(cudaSetDevice(1));
    CHECK(cudaFreeAsync(w1, t.s[1]));   // behind the last produce
    CHECK(cudaEventDestroy(t.pulled));
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventDestroy(t.ready));
}"""),
]
fill("/work/main/exercises/day075/peer_pool.cu", "peer-pool/correct.cu", H, E)
