from gen import read, edit, header, write

S = read("exercises/day071/strict_pool.cu")

C = S
C = edit(C, """static bool pools_supported(int device) {
    // TODO 1: ask the device whether it supports memory pools.
    (void)device;
    return false;
}""", """static bool pools_supported(int device) {
    int yes = 0;
    if (cudaDeviceGetAttribute(&yes, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return yes != 0;
}""")
C = edit(C, """private:
    // TODO 2: what the pool keeps: the pool itself, whatever hand needs,
    // and the first error.
};""", """private:
    cudaMemPool_t pool_ = nullptr;
    cudaEvent_t handed_ = nullptr;  // recorded on from, waited for by to: one is enough, a wait takes the record made before it
    cudaError_t first_ = cudaSuccess;
    // keep remembers err when it is the first failure.
    bool keep(cudaError_t err) {
        if (err != cudaSuccess && first_ == cudaSuccess) first_ = err;
        return err == cudaSuccess;
    }
};""")
C = edit(C, """StrictPool::StrictPool(int device) {
    (void)device;
}""", """StrictPool::StrictPool(int device) {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    if (!keep(cudaMemPoolCreate(&pool_, &props))) {
        pool_ = nullptr;
        return;
    }
    int off = 0;
    if (!keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, &off))) return;
    if (!keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off))) return;
    keep(cudaEventCreateWithFlags(&handed_, cudaEventDisableTiming));
}""")
C = edit(C, """StrictPool::~StrictPool() {
}""", """StrictPool::~StrictPool() {
    if (handed_ != nullptr) cudaEventDestroy(handed_);
    if (pool_ != nullptr) cudaMemPoolDestroy(pool_);
}""")
C = edit(C, """cudaError_t StrictPool::error() const {
    return cudaErrorNotYetImplemented;
}""", """cudaError_t StrictPool::error() const {
    return first_;
}""")
C = edit(C, """void* StrictPool::get(size_t bytes, cudaStream_t s) {
    (void)bytes;
    (void)s;
    return nullptr;
}""", """void* StrictPool::get(size_t bytes, cudaStream_t s) {
    if (pool_ == nullptr) return nullptr;
    void* p = nullptr;
    if (!keep(cudaMallocFromPoolAsync(&p, bytes, pool_, s))) return nullptr;
    return p;
}""")
C = edit(C, """void StrictPool::put(void* p, cudaStream_t s) {
    (void)p;
    (void)s;
}""", """void StrictPool::put(void* p, cudaStream_t s) {
    if (p != nullptr) keep(cudaFreeAsync(p, s));
}""")
C = edit(C, """void StrictPool::hand(cudaStream_t from, cudaStream_t to) {
    (void)from;
    (void)to;
}""", """void StrictPool::hand(cudaStream_t from, cudaStream_t to) {
    if (handed_ == nullptr) return;
    if (keep(cudaEventRecord(handed_, from))) keep(cudaStreamWaitEvent(to, handed_, 0));
}""")
C = edit(C, """int StrictPool::policy(cudaMemPoolAttr attr) {
    (void)attr;
    return -1;
}""", """int StrictPool::policy(cudaMemPoolAttr attr) {
    int v = -1;
    if (pool_ == nullptr || !keep(cudaMemPoolGetAttribute(pool_, attr, &v))) return -1;
    return v;
}""")
C = edit(C, """uint64_t StrictPool::reserved_high() {
    return 0;
}""", """uint64_t StrictPool::reserved_high() {
    uint64_t v = 0;
    if (pool_ == nullptr || !keep(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &v))) return 0;
    return v;
}""")
write("strict-pool", "correct.cu", header(
    "correct",
    "none: one event, made in the constructor, recorded on from and waited for by to at every hand (a wait takes the record queued before it, so reusing the event is safe); the first error kept by a helper that every call goes through.",
    "it is not wrong: the two policies off on the program's own pool, every crossing ordered by the program's event, no host wait.",
    "none (written from the lesson and the student file).") + C)

# wrong 1: the pool's properties not zeroed.
W1 = C
W1 = edit(W1, """    cudaMemPoolProps props = {};
    props.allocType""", """    cudaMemPoolProps props;  // every field the pool needs is set below
    props.allocType""")
write("strict-pool", "wrong-pool-props-left-uninitialised.cu", header(
    "wrong",
    "the cudaMemPoolProps is declared without an initialiser and only the four fields the lesson names are set.",
    "the rest of the struct (win32SecurityAttributes, and the reserved bytes that newer drivers read as maxSize and usage) holds whatever was on the stack: a nonzero maxSize caps the pool, a nonzero usage or reserved byte makes cudaMemPoolCreate fail with invalid argument or changes the pool; on a stack that happens to be zero there the run is right.",
    "ggml-org/llama.cpp#2005 (a CUDA struct left partly uninitialised: garbage fields, invalid argument at free; fixed by zeroing it), NVIDIA/cccl#11462 (the runtime's rule quoted there: cudaMemPoolProps::maxSize and usage must be zero unless meant)") + W1)

# wrong 2: hand waits on the host.
W2 = C
W2 = edit(W2, """    if (keep(cudaEventRecord(handed_, from))) keep(cudaStreamWaitEvent(to, handed_, 0));""", """    // to's next get must come after from's puts: wait for them here
    if (keep(cudaEventRecord(handed_, from))) keep(cudaEventSynchronize(handed_));
    (void)to;""")
write("strict-pool", "wrong-hand-waits-on-the-host.cu", header(
    "wrong",
    "hand records the event on from and then waits for it with cudaEventSynchronize, so that everything after it (to's next get included) comes after from's work.",
    "the order comes from the host, not from the streams: to never waits for the event, so the pool sees no dependency between the streams (the block still crosses, because the host waited until from's free was done), and the host stops at every hand, which the exercise forbids; every round prints right.",
    "ml-explore/mlx#4400 (a GPU-to-GPU cross-stream dependency implemented as a host wait: the fix is a native event the consumer stream waits for), lsds/KungFu#65 (synchronising on the host instead of event record and stream wait costs the overlap)") + W2)

# wrong 3: the event recorded at put, hand only waits.
W3 = C
W3 = edit(W3, """void StrictPool::put(void* p, cudaStream_t s) {
    if (p != nullptr) keep(cudaFreeAsync(p, s));
}""", """void StrictPool::put(void* p, cudaStream_t s) {
    if (p == nullptr) return;
    // mark the free in s's order, so that a hand can order another stream after it
    if (keep(cudaFreeAsync(p, s)) && handed_ != nullptr) keep(cudaEventRecord(handed_, s));
}""")
W3 = edit(W3, """    if (keep(cudaEventRecord(handed_, from))) keep(cudaStreamWaitEvent(to, handed_, 0));""", """    (void)from;  // the last put recorded where from's free is
    keep(cudaStreamWaitEvent(to, handed_, 0));""")
write("strict-pool", "wrong-event-recorded-at-put-not-at-hand.cu", header(
    "wrong",
    "put records the pool's event right after its cudaFreeAsync, and hand only makes to wait for that event, whatever from is.",
    "hand promises to order to after everything queued on from so far: with the record at the last put, work queued on from after that put, or a hand from a stream that made no put since, is not covered (the wait then takes the last put of another stream); in main each hand follows a put on the same stream with nothing between, so every round is right.",
    "NVIDIA/cub#156 (the caching allocator recorded its event at the wrong point relative to the block's listing: a stale event let another stream claim a block still in use)") + W3)
