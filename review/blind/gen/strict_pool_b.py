ID = "strict-pool"
DIR = "strict-pool-b"
SRC = "exercises/day071/strict_pool.cu"
NOTE = "A second blind set for strict-pool, written later by another helper from the lesson and the student file alone, without sight of the first set's programs (its MANIFEST.md was read, for the format, so its five mistakes were avoided). Correct design: one event per stream that hands over, made at its first hand-over (on the current device) and recorded again at each (a wait takes the event as it is when the wait is queued, so a later record cannot change an earlier wait); the first error kept by a small helper that every call goes through; the policies read back from the pool."


def H(kind, mistake, why, source):
    return {"kind": kind, "mistake": mistake, "why it is wrong": why, "source": source}


E = [
("""    // TODO 1: ask the device whether it supports memory pools.
    (void)device;
    return false;""", """    int supported = 0;
    if (cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) {
        (void)cudaGetLastError();   // an old driver: no pools
        return false;
    }
    return supported == 1;"""),
("""    // TODO 2: what the pool keeps: the pool itself, whatever hand needs,
    // and the first error.
};""", """    // ok keeps the first error and says whether this call went well.
    bool ok(cudaError_t e) {
        if (e != cudaSuccess && first_ == cudaSuccess) first_ = e;
        return e == cudaSuccess;
    }
    cudaMemPool_t pool_ = nullptr;
    cudaError_t first_ = cudaSuccess;
    // One event per stream that hands over, recorded again at each hand: a
    // cudaStreamWaitEvent takes the event's last record at the time it is
    // queued, so recording it again later cannot change a wait made earlier.
    static const int kMaxStreams = 8;
    cudaStream_t from_[kMaxStreams] = {};
    cudaEvent_t done_[kMaxStreams] = {};
    int streams_ = 0;
};"""),
("""StrictPool::StrictPool(int device) {
    (void)device;
}""", """StrictPool::StrictPool(int device) {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    if (!ok(cudaMemPoolCreate(&pool_, &props))) {
        pool_ = nullptr;
        return;
    }
    // Off: reuse of a free that merely happens to be done, and waits the
    // driver would insert by itself. Following the program's events stays on.
    int off = 0;
    ok(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, &off));
    ok(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off));
}"""),
("""StrictPool::~StrictPool() {
}""", """StrictPool::~StrictPool() {
    for (int i = 0; i < streams_; i++) ok(cudaEventDestroy(done_[i]));
    if (pool_ != nullptr) ok(cudaMemPoolDestroy(pool_));
}"""),
("""cudaError_t StrictPool::error() const {
    return cudaErrorNotYetImplemented;
}""", """cudaError_t StrictPool::error() const {
    return first_;
}"""),
("""void* StrictPool::get(size_t bytes, cudaStream_t s) {
    (void)bytes;
    (void)s;
    return nullptr;
}""", """void* StrictPool::get(size_t bytes, cudaStream_t s) {
    if (pool_ == nullptr) {
        ok(cudaErrorInvalidValue);
        return nullptr;
    }
    void* p = nullptr;
    if (!ok(cudaMallocFromPoolAsync(&p, bytes, pool_, s))) return nullptr;
    return p;
}"""),
("""void StrictPool::put(void* p, cudaStream_t s) {
    (void)p;
    (void)s;
}""", """void StrictPool::put(void* p, cudaStream_t s) {
    if (p != nullptr) ok(cudaFreeAsync(p, s));
}"""),
("""void StrictPool::hand(cudaStream_t from, cudaStream_t to) {
    (void)from;
    (void)to;
}""", """void StrictPool::hand(cudaStream_t from, cudaStream_t to) {
    int i = 0;
    while (i < streams_ && from_[i] != from) i++;
    if (i == streams_) {   // from's first hand: its event
        if (streams_ == kMaxStreams) {
            ok(cudaErrorInvalidValue);
            return;
        }
        if (!ok(cudaEventCreateWithFlags(&done_[i], cudaEventDisableTiming))) return;
        from_[i] = from;
        streams_++;
    }
    if (ok(cudaEventRecord(done_[i], from))) ok(cudaStreamWaitEvent(to, done_[i], 0));
}"""),
("""int StrictPool::policy(cudaMemPoolAttr attr) {
    (void)attr;
    return -1;
}""", """int StrictPool::policy(cudaMemPoolAttr attr) {
    int v = -1;
    if (pool_ == nullptr || !ok(cudaMemPoolGetAttribute(pool_, attr, &v))) return -1;
    return v;
}"""),
("""size_t StrictPool::reserved_high() {
    return 0;
}""", """size_t StrictPool::reserved_high() {
    uint64_t high = 0;
    if (pool_ == nullptr || !ok(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &high))) return 0;
    return (size_t)high;
}"""),
]

CORRECT = (H("correct",
             "None intended: a pool of its own with opportunistic reuse and internal dependencies off; get and put with cudaMallocFromPoolAsync and cudaFreeAsync on the pool; hand records the handing stream's own event (one per stream, made at its first hand) and queues the other stream's wait; policy and reserved_high ask the pool; the first error kept.",
             "Correct: the only way a block crosses from A to B is B's wait for an event A recorded after its put, which the pool follows (event dependencies stay on); a wait takes the event's last record when it is queued, so reusing one event per stream is safe; the pool reports its own policies and its own high-water mark; the host never waits in the loop.",
             "own"),
           E)

WRONGS = [
("policy-from-memory",
 H("the policies reported from what the program set, not asked of the pool (output identical)",
   "The constructor remembers the values it set, and policy() returns them: 'I know what I set, asking the driver again is a waste'.",
   "policy() is there to say what the pool really does, and a remembered value says only what the program meant: a set that failed, a wrong attribute set, or a pool that ignored it would still print 0. Here the sets are right, so the output is the same; only the absence of the attribute reads shows it.",
   "own (the exercise: 'policy ... asked of the pool')"),
 [("""    cudaError_t first_ = cudaSuccess;
""", """    cudaError_t first_ = cudaSuccess;
    int opportunistic_ = -1, internal_ = -1;   // what the constructor set
"""),
  ("""    ok(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, &off));
    ok(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off));""", """    if (ok(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, &off))) opportunistic_ = off;
    if (ok(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off))) internal_ = off;"""),
  ("""    int v = -1;
    if (pool_ == nullptr || !ok(cudaMemPoolGetAttribute(pool_, attr, &v))) return -1;
    return v;""", """    if (attr == cudaMemPoolReuseAllowOpportunistic) return opportunistic_;
    if (attr == cudaMemPoolReuseAllowInternalDependencies) return internal_;
    return -1;""")]),
("get-from-current-pool",
 H("blocks taken from the device's current pool, not the strict one (output shows only figures)",
   "get allocates with cudaMallocAsync(&p, bytes, s), 'the stream-ordered allocation', so every block comes from the device's current pool (its default pool), while the strict pool is made, set and asked but never allocated from.",
   "The blocks now follow the default pool's policies, opportunistic reuse and internal dependencies on, which is what the exercise turns off: a block may cross streams with no event of the program's. The run still prints the strict pool's policies (0 and 0), B still gets A's block (the hand orders it), and the sums are right; only 'pool reserved at most 0 MiB', the strict pool's own figure, shows that it held nothing, and only to a reader who expects one block's worth.",
   "https://github.com/cupy/cupy/pull/5191 (the device's default pool confused with the pool in use); the mistake is own"),
 [("""    if (!ok(cudaMallocFromPoolAsync(&p, bytes, pool_, s))) return nullptr;""",
   """    if (!ok(cudaMallocAsync(&p, bytes, s))) return nullptr;   // stream-ordered, as asked""")]),
("record-on-legacy-stream",
 H("the hand's event recorded on the legacy default stream (output shows only figures)",
   "hand records its event with cudaEventRecord(done) and no stream argument, as in the timing examples where the stream is left out, then queues the other stream's wait on it.",
   "Without a stream argument the record goes on the legacy default stream (stream 0), which the non-blocking streams A and B neither wait for nor are waited for by: the event completes at once, and B's wait orders it after nothing of A's. With the strict policies, B's get cannot take A's block (not ordered after A's put) and the pool grows a second block: the figures 'B reused the block A freed' and 'reserved at most' change, the sums do not.",
   "https://github.com/csarofeen/pytorch/pull/2521 (events recorded on the default stream while the kernels ran on another: 'we need to record the start/end events on the stream where kernels are launched') and https://github.com/libocca/occa/issues/378 (events assumed on the NULL stream)"),
 [("""    if (ok(cudaEventRecord(done_[i], from))) ok(cudaStreamWaitEvent(to, done_[i], 0));""",
   """    (void)from;
    if (ok(cudaEventRecord(done_[i]))) ok(cudaStreamWaitEvent(to, done_[i], 0));""")]),
("get-waits-for-block",
 H("a host wait in get (output identical)",
   "get synchronises the stream after cudaMallocFromPoolAsync, 'so that the block is really there before anyone uses it'.",
   "A block from cudaMallocFromPoolAsync is ready in s's order: work queued on s after the call may use it, and nothing else should. The synchronisation makes the host wait for everything queued on s at every get, twice a round, so the two streams can no longer run ahead of the host, which the exercise forbids ('the host never waits inside the loop'). The figures are those of the right answer: the host wait even lets the pool reuse A's block, since the free is then known complete.",
   "https://github.com/rapidsai/rmm/issues/2156 (allocate_sync: what 'immediately valid on all streams' takes); the mistake is own"),
 [("""    if (!ok(cudaMallocFromPoolAsync(&p, bytes, pool_, s))) return nullptr;""",
   """    if (!ok(cudaMallocFromPoolAsync(&p, bytes, pool_, s))) return nullptr;
    if (!ok(cudaStreamSynchronize(s))) return nullptr;   // the block is there now""")]),
("link-once",
 H("a stream wait taken for a permanent link (output shows only figures)",
   "hand records and queues the wait only the first time a stream hands over: the student takes cudaStreamWaitEvent for a link between the two streams that holds from then on.",
   "A wait orders the waiting stream after the event's record at that moment, once. From the second round on B is not ordered after A's put, so the strict pool gives B a new block (the pool grows to two blocks) and B's own block back afterwards; 'B reused the block A freed' drops to 1 of 6 and 'reserved at most' doubles. The sums are right.",
   "https://forums.developer.nvidia.com/t/when-event-changes-its-state-from-notready-to-recording-cudaeventrecord-stream/6669 (what a wait on an event takes); the mistake is own"),
 [("""        from_[i] = from;
        streams_++;
    }
    if (ok(cudaEventRecord(done_[i], from))) ok(cudaStreamWaitEvent(to, done_[i], 0));""", """        from_[i] = from;
        streams_++;
        // the first hand links the two streams
        if (ok(cudaEventRecord(done_[i], from))) ok(cudaStreamWaitEvent(to, done_[i], 0));
    }""")]),
]
