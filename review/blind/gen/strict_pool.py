ID = "strict-pool"
SRC = "exercises/day071/strict_pool.cu"
NOTE = "Correct design: hand makes a fresh event for each hand-over, records it on `from`, queues the wait on `to` and destroys it at once (legal: the wait has already taken the event's mark, and the event's resources go when its work completes); errors kept by one helper that remembers the first."
def H(kind, mistake, why, source):
    return {"kind": kind, "mistake": mistake, "why it is wrong": why, "source": source}
E = [
("""    // TODO 1: ask the device whether it supports memory pools.
    (void)device;
    return false;""", """    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return v != 0;"""),
("""    // TODO 2: what the pool keeps: the pool itself, whatever hand needs,
    // and the first error.
};""", """    // keep remembers err if it is the first error, and says whether the
    // call went well.
    bool keep(cudaError_t err) {
        if (err != cudaSuccess && err_ == cudaSuccess) err_ = err;
        return err == cudaSuccess;
    }
    cudaMemPool_t pool_ = nullptr;
    cudaError_t err_ = cudaSuccess;
    // hand needs nothing kept: it makes an event for each hand-over.
};"""),
("""StrictPool::StrictPool(int device) {
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
    int off = 0, on = 1;
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, &off));
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off));
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseFollowEventDependencies, &on));
}"""),
("""StrictPool::~StrictPool() {
}""", """StrictPool::~StrictPool() {
    if (pool_ != nullptr) cudaMemPoolDestroy(pool_);
}"""),
("""cudaError_t StrictPool::error() const {
    return cudaErrorNotYetImplemented;
}""", """cudaError_t StrictPool::error() const {
    return err_;
}"""),
("""void* StrictPool::get(size_t bytes, cudaStream_t s) {
    (void)bytes;
    (void)s;
    return nullptr;
}""", """void* StrictPool::get(size_t bytes, cudaStream_t s) {
    void* p = nullptr;
    if (pool_ == nullptr) {
        keep(cudaErrorInvalidValue);
        return nullptr;
    }
    if (!keep(cudaMallocFromPoolAsync(&p, bytes, pool_, s))) return nullptr;
    return p;
}"""),
("""void StrictPool::put(void* p, cudaStream_t s) {
    (void)p;
    (void)s;
}""", """void StrictPool::put(void* p, cudaStream_t s) {
    if (p != nullptr) keep(cudaFreeAsync(p, s));
}"""),
("""void StrictPool::hand(cudaStream_t from, cudaStream_t to) {
    (void)from;
    (void)to;
}""", """void StrictPool::hand(cudaStream_t from, cudaStream_t to) {
    // An event for this hand alone. Destroying it right after the wait is
    // queued is fine: the wait has taken the event's mark when it was
    // queued (a single event recorded again later would do as well, for
    // the same reason: later records do not move a wait already queued).
    cudaEvent_t e;
    if (!keep(cudaEventCreateWithFlags(&e, cudaEventDisableTiming))) return;
    keep(cudaEventRecord(e, from));
    keep(cudaStreamWaitEvent(to, e, 0));
    keep(cudaEventDestroy(e));
}"""),
("""int StrictPool::policy(cudaMemPoolAttr attr) {
    (void)attr;
    return -1;
}""", """int StrictPool::policy(cudaMemPoolAttr attr) {
    int v = -1;
    if (pool_ == nullptr || !keep(cudaMemPoolGetAttribute(pool_, attr, &v))) return -1;
    return v;
}"""),
("""size_t StrictPool::reserved_high() {
    return 0;
}""", """size_t StrictPool::reserved_high() {
    unsigned long long v = 0; // the attribute is 64 bits wide
    if (pool_ == nullptr || !keep(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &v))) return 0;
    return (size_t)v;
}"""),
]
CORRECT = (H("correct", "None intended: own pool with opportunistic reuse and internal dependencies off, an event made for each hand-over (recorded, waited for, destroyed), first error kept.", "n/a", "own"), E)
WRONGS = [
 ("policies-on-default-pool",
  H("settings on the wrong pool (output identical)",
    "The constructor creates the pool but turns the two policies off on the device's default pool (fetched with cudaDeviceGetDefaultMemPool, 'the device's pool'), and policy() asks that same default pool, so the program prints 'opportunistic 0, internal dependencies 0'. The pool the blocks come from keeps both policies on, and every library sharing the default pool has its policies changed.",
    "Day 71, 'Reuse policies' and the exercise: the policies of a pool of your own are turned off (cudaMemPoolCreate); the default pool is shared with every library in the process: change its policies only if the whole process agrees.",
    "https://github.com/cupy/cupy/pull/5191 (confusion between the device's default pool and the pool actually used)"),
  [("""    int off = 0, on = 1;
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, &off));
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off));
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseFollowEventDependencies, &on));""",
    """    int off = 0, on = 1;
    cudaMemPool_t dev = nullptr;
    keep(cudaDeviceGetDefaultMemPool(&dev, device)); // the device's pool
    keep(cudaMemPoolSetAttribute(dev, cudaMemPoolReuseAllowOpportunistic, &off));
    keep(cudaMemPoolSetAttribute(dev, cudaMemPoolReuseAllowInternalDependencies, &off));
    keep(cudaMemPoolSetAttribute(dev, cudaMemPoolReuseFollowEventDependencies, &on));"""),
   ("""    int v = -1;
    if (pool_ == nullptr || !keep(cudaMemPoolGetAttribute(pool_, attr, &v))) return -1;
    return v;""", """    int v = -1;
    cudaMemPool_t dev = nullptr;
    if (!keep(cudaDeviceGetDefaultMemPool(&dev, 0)) || !keep(cudaMemPoolGetAttribute(dev, attr, &v))) return -1;
    return v;""")]),
 ("hand-polls-stream",
  H("host wait disguised",
    "hand spins on cudaStreamQuery(from) until `from` is idle, then returns, reasoning that 'to' is then ordered after everything 'from' queued. No synchronisation call appears and B still gets A's block (the free is known complete, as the lesson's 'host waited for A' row shows), but the host waits inside the loop at every hand-over.",
    "Day 71, exercise: hand 'orders to after everything queued on from so far ... the host does not wait'; the checks see that each stream waits for the other's event and that the host never waits inside the loop.",
    "https://forums.developer.nvidia.com/t/cpu-spins-while-waiting-for-gpu-to-finish-computation/241672 (host spinning on the GPU)"),
  [("""    cudaEvent_t e;
    if (!keep(cudaEventCreateWithFlags(&e, cudaEventDisableTiming))) return;
    keep(cudaEventRecord(e, from));
    keep(cudaStreamWaitEvent(to, e, 0));
    keep(cudaEventDestroy(e));""", """    (void)to;
    cudaError_t q;
    while ((q = cudaStreamQuery(from)) == cudaErrorNotReady) {
    } // everything 'from' queued is done: 'to' comes after it
    keep(q);""")]),
 ("put-with-cudafree",
  H("freeing with the wrong API",
    "put gives the block back with cudaFree instead of cudaFreeAsync. For memory from cudaMallocFromPoolAsync, cudaFree does not synchronise: the block returns to the pool at once, outside any stream's order, while A's fill may still be writing it, and B can be handed it with no event at all.",
    "Day 71 (and Day 70, 'Sharing memory between streams'): a block goes back in the freeing stream's order, after the work queued on it; the runtime API reference of cudaFree: no implicit synchronisation for stream-ordered allocations, callers must ensure all accesses have completed.",
    "https://github.com/kokkos/kokkos/issues/9307 (cudaFree of cudaMallocAsync memory does not synchronise; code assumed it did)"),
  [("""    if (p != nullptr) keep(cudaFreeAsync(p, s));""", """    (void)s;
    if (p != nullptr) keep(cudaFree(p)); // back to the pool it came from""")]),
 ("get-ignores-error",
  H("error lost on a path the defaults never take",
    "get ignores what cudaMallocFromPoolAsync returns and hands back whatever pointer it has; when the allocation fails (a pool that cannot grow, a size the device cannot hold) get returns nullptr with error() still cudaSuccess, so main launches on a null pointer instead of stopping with the reason. The default sizes never fail.",
    "Day 71, exercise: 'No call of yours prints: the first failure is kept for error(), which main checks after each step'; get returns nullptr 'and error() says why'.",
    "own"),
  [("""    if (!keep(cudaMallocFromPoolAsync(&p, bytes, pool_, s))) return nullptr;
    return p;""", """    cudaMallocFromPoolAsync(&p, bytes, pool_, s);
    return p;""")]),
 ("wait-before-record",
  H("a wait queued before the record it means",
    "With one event kept for every hand, hand queues the wait on `to` first and records the event on `from` after it. The wait takes the event's previous record (the last hand the other way, or nothing the first time), so B is not ordered after A's put, and the strict pool gives B a new block instead of A's.",
    "Day 70, 'One event, recorded for every chunk': cudaStreamWaitEvent uses the event's most recent record at the time of the call; Day 71: B may take A's block only after waiting for an event recorded on A after the free.",
    "https://forums.developer.nvidia.com/t/when-event-changes-its-state-from-notready-to-recording-cudaeventrecord-stream/6669 (confusion over when a record takes effect); the mistake is own"),
  [("""    cudaMemPool_t pool_ = nullptr;
    cudaError_t err_ = cudaSuccess;
    // hand needs nothing kept: it makes an event for each hand-over.""", """    cudaMemPool_t pool_ = nullptr;
    cudaError_t err_ = cudaSuccess;
    cudaEvent_t handed_ = nullptr;  // one event, recorded again at every hand"""),
   ("""    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseFollowEventDependencies, &on));
}""", """    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseFollowEventDependencies, &on));
    keep(cudaEventCreateWithFlags(&handed_, cudaEventDisableTiming));
}"""),
   ("""    if (pool_ != nullptr) cudaMemPoolDestroy(pool_);""", """    if (handed_ != nullptr) cudaEventDestroy(handed_);
    if (pool_ != nullptr) cudaMemPoolDestroy(pool_);"""),
   ("""    cudaEvent_t e;
    if (!keep(cudaEventCreateWithFlags(&e, cudaEventDisableTiming))) return;
    keep(cudaEventRecord(e, from));
    keep(cudaStreamWaitEvent(to, e, 0));
    keep(cudaEventDestroy(e));""", """    keep(cudaStreamWaitEvent(to, handed_, 0));
    keep(cudaEventRecord(handed_, from));""")]),
]
