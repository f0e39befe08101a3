STUDENT = "exercises/day071/strict_pool.cu"
DIR = "strict-pool"
EXT = "cu"
COMMENT = "//"
CORRECT_HEADER = dict(
    kind="correct (a design of its own)",
    mistake="""none. The pool keeps a ring of two events made in the constructor; each
    hand records the next event of the ring on `from` and makes `to` wait for
    that same event at once, then moves the ring on. The first error of any call
    is kept in a member (keep()). The support check asks
    cudaDevAttrMemoryPoolsSupported.""",
    why="""it is not: each wait is queued right after the record it waits for, on the
    same event; a ring of two only means an event is recorded again one hand
    later, after its wait was queued, which the wait does not see.""",
    source="""own design from the lesson (day 71, "Before any of this: does the device
    have pools?", "The exercise: a strict pool"); the runtime API reference,
    cudaMemPoolSetAttribute (the reuse policies) and cudaStreamWaitEvent.""")

CORRECT = [
("""    // TODO 1: ask the device whether it supports memory pools.
    (void)device;
    return false;""",
"""    int yes = 0;
    if (cudaDeviceGetAttribute(&yes, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return yes != 0;"""),
("""    // TODO 2: what the pool keeps: the pool itself, whatever hand needs,
    // and the first error.
};""",
"""    cudaMemPool_t pool_ = nullptr;
    cudaEvent_t ring_[2] = {nullptr, nullptr};
    int next_ = 0;
    cudaError_t err_ = cudaSuccess;
    // keep remembers e if it is the first error; it says whether e is one.
    bool keep(cudaError_t e) {
        if (e != cudaSuccess && err_ == cudaSuccess) err_ = e;
        return e != cudaSuccess;
    }
};"""),
("""StrictPool::StrictPool(int device) {
    (void)device;
}""",
"""StrictPool::StrictPool(int device) {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    if (keep(cudaMemPoolCreate(&pool_, &props))) {
        pool_ = nullptr;
        return;
    }
    int off = 0;
    if (keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, &off))) return;
    if (keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off))) return;
    for (cudaEvent_t& e : ring_)
        if (keep(cudaEventCreateWithFlags(&e, cudaEventDisableTiming))) return;
}"""),
("""StrictPool::~StrictPool() {
}""",
"""StrictPool::~StrictPool() {
    for (cudaEvent_t e : ring_)
        if (e != nullptr) cudaEventDestroy(e);
    if (pool_ != nullptr) cudaMemPoolDestroy(pool_);
}"""),
("""cudaError_t StrictPool::error() const {
    return cudaErrorNotYetImplemented;
}""",
"""cudaError_t StrictPool::error() const {
    return err_;
}"""),
("""void* StrictPool::get(size_t bytes, cudaStream_t s) {
    (void)bytes;
    (void)s;
    return nullptr;
}""",
"""void* StrictPool::get(size_t bytes, cudaStream_t s) {
    if (pool_ == nullptr) {
        keep(cudaErrorInvalidValue);
        return nullptr;
    }
    void* p = nullptr;
    if (keep(cudaMallocFromPoolAsync(&p, bytes, pool_, s))) return nullptr;
    return p;
}"""),
("""void StrictPool::put(void* p, cudaStream_t s) {
    (void)p;
    (void)s;
}""",
"""void StrictPool::put(void* p, cudaStream_t s) {
    if (p != nullptr) keep(cudaFreeAsync(p, s));
}"""),
("""void StrictPool::hand(cudaStream_t from, cudaStream_t to) {
    (void)from;
    (void)to;
}""",
"""void StrictPool::hand(cudaStream_t from, cudaStream_t to) {
    cudaEvent_t e = ring_[next_];
    if (e == nullptr) {
        keep(cudaErrorInvalidResourceHandle);
        return;
    }
    if (keep(cudaEventRecord(e, from))) return;
    keep(cudaStreamWaitEvent(to, e, 0));
    next_ = 1 - next_;
}"""),
("""int StrictPool::policy(cudaMemPoolAttr attr) {
    (void)attr;
    return -1;
}""",
"""int StrictPool::policy(cudaMemPoolAttr attr) {
    int v = -1;
    if (pool_ == nullptr || keep(cudaMemPoolGetAttribute(pool_, attr, &v))) return -1;
    return v;
}"""),
("""uint64_t StrictPool::reserved_high() {
    return 0;
}""",
"""uint64_t StrictPool::reserved_high() {
    uint64_t v = 0;
    if (pool_ == nullptr || keep(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &v))) return 0;
    return v;
}"""),
]

WRONG = [
("only-opportunistic-off", dict(
    kind="a missing setting: only one of the two reuse policies turned off",
    mistake="""the constructor turns off cudaMemPoolReuseAllowOpportunistic, as RMM did
    for old drivers, and leaves cudaMemPoolReuseAllowInternalDependencies on.""",
    why="""with internal dependencies allowed, the driver may hand a block freed on
    A to B's allocation by inserting a wait of its own: a block crosses streams
    without an event of the program's, which is what the strict pool must
    forbid; the program prints "internal dependencies 1".""",
    source="""rapidsai/rmm#993 ("Disable opportunistic reuse in async mr when cuda
    driver < 11.5": only cudaMemPoolReuseAllowOpportunistic is set to 0)."""),
 [("""    if (keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off))) return;
""", "")]),
("supported-unless-tcc", dict(
    kind="a latent branch: pool support inferred from the driver model",
    mistake="""pools_supported asks whether the device runs the TCC driver model
    (cudaDevAttrTccDriver) and says yes when it does not, since pools were
    missing on TCC devices, instead of asking cudaDevAttrMemoryPoolsSupported.""",
    why="""whether a device has the stream-ordered allocator is its own attribute;
    devices without it (Maxwell, some virtualised setups, older drivers) are not
    TCC devices, so the program makes a pool there and fails, and where the
    device says no pools it still goes on. The H200 takes the same branch either
    way: only a run where the device answers "no pools" shows it.""",
    source="""NVIDIA/cuda-python#208 ("Check TCC/WDDM modes during Device
    initialization" to work around mempools being unavailable: "it might also be
    sufficient to just check CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED");
    NVIDIA/cuvs#2528 (cudaDevAttrMemoryPoolsSupported reads 0 on every Maxwell
    GPU)."""),
 [("""    if (cudaDeviceGetAttribute(&yes, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return yes != 0;""",
   """    if (cudaDeviceGetAttribute(&yes, cudaDevAttrTccDriver, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return yes == 0;""")]),
("hand-waits-the-other-ring-event", dict(
    kind="ordering: the wait on another event than the one just recorded",
    mistake="""hand records ring_[next_] on `from` but makes `to` wait for the other
    event of the ring, the one the previous hand recorded (on the other stream,
    or never for the first hand).""",
    why="""a wait sees only the record of the event it names: `to` waits for the
    previous hand's record (for B, a record B itself made a round before, or
    nothing), not for A's put, so B's get cannot take A's block (with the
    policies off the pool reserves a second block), and nothing orders B after
    A's work.""",
    source="""torch/cutorch#222 (stream synchronisation functions recording one event
    per GPU and waiting on it: "the synchronization was performed only with the
    last stream on which the event was recorded"); the runtime API reference,
    cudaEventRecord ("will overwrite any existing state")."""),
 [("""    keep(cudaStreamWaitEvent(to, e, 0));
    next_ = 1 - next_;""",
   """    next_ = 1 - next_;
    keep(cudaStreamWaitEvent(to, ring_[next_], 0));""")]),
]
