EXERCISE = 'strict-pool'
STUDENT = 'exercises/day071/strict_pool.cu'
EXT = 'cu'
TODO = [
("""#include <cuda_runtime.h>

#define CHECK""", """#include <utility>
#include <vector>
#include <cuda_runtime.h>

#define CHECK"""),
("""    // TODO 1: ask the device whether it supports memory pools.
    (void)device;
    return false;""",
"""    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return v == 1;"""),
("""    // TODO 2: what the pool keeps: the pool itself, whatever hand needs,
    // and the first error.
};""",
"""    cudaMemPool_t pool_ = nullptr;
    // One event per stream that hands, made the first time that stream
    // hands: hands from different streams never share an event.
    std::vector<std::pair<cudaStream_t, cudaEvent_t>> events_;
    cudaError_t first_ = cudaSuccess;
    // keep remembers e when it is the first failure, and says whether the
    // call succeeded.
    bool keep(cudaError_t e) {
        if (e != cudaSuccess && first_ == cudaSuccess) first_ = e;
        return e == cudaSuccess;
    }
    // event_of is stream s's event, made on its first hand; nullptr when
    // it cannot be made.
    cudaEvent_t event_of(cudaStream_t s);
};

cudaEvent_t StrictPool::event_of(cudaStream_t s) {
    for (const auto& e : events_)
        if (e.first == s) return e.second;
    cudaEvent_t ev = nullptr;
    if (!keep(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming))) return nullptr;
    events_.push_back({s, ev});
    return ev;
}"""),
("""StrictPool::StrictPool(int device) {
    (void)device;
}""",
"""StrictPool::StrictPool(int device) {
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
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, &off));
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off));
}"""),
("""StrictPool::~StrictPool() {
}""",
"""StrictPool::~StrictPool() {
    for (const auto& e : events_) cudaEventDestroy(e.second);
    if (pool_ != nullptr) cudaMemPoolDestroy(pool_);
}"""),
("""cudaError_t StrictPool::error() const {
    return cudaErrorNotYetImplemented;
}""",
"""cudaError_t StrictPool::error() const {
    return first_;
}"""),
("""void* StrictPool::get(size_t bytes, cudaStream_t s) {
    (void)bytes;
    (void)s;
    return nullptr;
}""",
"""void* StrictPool::get(size_t bytes, cudaStream_t s) {
    void* p = nullptr;
    if (pool_ == nullptr || !keep(cudaMallocFromPoolAsync(&p, bytes, pool_, s))) return nullptr;
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
"""// hand records from's own event on from and makes to wait for it. One
// event per handing stream: two streams that hand at once (from two host
// threads, say) never record over each other's mark, and a stream's later
// hand moves only its own event, after every wait for the earlier mark is
// queued. The price is the table, kept until the destructor.
void StrictPool::hand(cudaStream_t from, cudaStream_t to) {
    cudaEvent_t ev = event_of(from);
    if (ev == nullptr) return;
    if (keep(cudaEventRecord(ev, from))) keep(cudaStreamWaitEvent(to, ev, 0));
}"""),
("""int StrictPool::policy(cudaMemPoolAttr attr) {
    (void)attr;
    return -1;
}""",
"""int StrictPool::policy(cudaMemPoolAttr attr) {
    int v = -1;
    if (pool_ == nullptr || !keep(cudaMemPoolGetAttribute(pool_, attr, &v))) return -1;
    return v;
}"""),
("""uint64_t StrictPool::reserved_high() {
    return 0;
}""",
"""uint64_t StrictPool::reserved_high() {
    uint64_t v = 0;
    if (pool_ == nullptr || !keep(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &v))) return 0;
    return v;
}"""),
]
CORRECT = dict(
    kind='correct',
    mistake="none: one event per stream that hands, made at that stream's first hand and kept in a table until the destructor; hand records from's event on from and makes to wait for it; the first error kept by one helper every call goes through",
    **{'why it is wrong': "it is not: every hand's wait follows its own record, queued together, and the pool sees each wait, so B's get may take the block A put back"},
    source='none (written from the lesson and the student file)')
WRONG = [
('hand-skips-a-wait-already-met',
 dict(kind='wrong (timing: shows when from\'s work is done by the time hand asks, as with small blocks)',
      mistake="hand records from's event, then queries it, and queues to's wait only when the event is not yet complete, taking a wait for finished work to be a no-op",
      **{'why it is wrong': "the ordering is indeed already there when the event is complete, but the pool lets a block freed on A reach B only through a wait B's stream has queued (following event dependencies: opportunistic reuse is off): with no wait, B's get cannot take A's block and the pool reserves a second one. With 32 MiB blocks A's fill is usually still running when hand asks, and the run prints the reference; with small blocks, or a host that comes late, the rounds whose wait was skipped grow the pool"},
      source='intel/llvm#5099 (a cuStreamWaitEvent dropped as \"semantically a no op\" when its event belongs to the same stream), ComputationalRadiationPhysics/picongpu#536 (cudaStreamWaitEvent \"called too often\": waits cut for speed)'),
 [("""    if (keep(cudaEventRecord(ev, from))) keep(cudaStreamWaitEvent(to, ev, 0));""",
   """    if (!keep(cudaEventRecord(ev, from))) return;
    // Work that is already done needs no wait.
    if (cudaEventQuery(ev) == cudaSuccess) return;
    (void)cudaGetLastError();
    keep(cudaStreamWaitEvent(to, ev, 0));""")]),
('policy-answers-what-was-set',
 dict(kind='wrong (a value reported, not asked: the output is the reference\'s)',
      mistake="the constructor remembers the two policies it set (0 and 0) and policy() answers from that memory, the rest (follow event dependencies) as 1, without asking the pool",
      **{'why it is wrong': "policy is the pool's own value, asked of the pool: the line \"pool: opportunistic 0, internal dependencies 0\" must say what the driver applied, so that a setting that failed, or one made on another pool, shows. Here it says what the program meant, whatever the pool does"},
      source='NVIDIA/cccl#10618 (an attribute read once and cached, so a later change by the user is not seen), ROCm/rocm-systems#11690 (a release threshold that read back as set while the pool ignored it: only asking the pool what it does showed it)'),
 [("""    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;""",
   """    opportunistic_ = internal_ = 0;
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;"""),
  ("""    cudaError_t first_ = cudaSuccess;""",
   """    cudaError_t first_ = cudaSuccess;
    int opportunistic_ = 1, internal_ = 1;   // the policies as set"""),
  ("""    int v = -1;
    if (pool_ == nullptr || !keep(cudaMemPoolGetAttribute(pool_, attr, &v))) return -1;
    return v;""",
   """    if (pool_ == nullptr) return -1;
    if (attr == cudaMemPoolReuseAllowOpportunistic) return opportunistic_;
    if (attr == cudaMemPoolReuseAllowInternalDependencies) return internal_;
    return 1;""")]),
('get-falls-back-to-the-device-pool',
 dict(kind='wrong (an error path: shows only when the pool refuses an allocation)',
      mistake="when cudaMallocFromPoolAsync fails, get clears the error and allocates the block with cudaMallocAsync instead, from the device's current pool, so that the program goes on",
      **{'why it is wrong': "the block then comes from the device's default pool, whose reuse policies are all on (the very reuse this pool exists to forbid), the failure is hidden from error() (main's check after each get passes), and put gives it back to a pool the strict pool does not own. No run that succeeds takes this branch, so the output is the reference's"},
      source='ooples/AiDotNet.Tensors#609 (review: \"Do not silently fall back\" to an allocator without the guarantees), NVIDIA/cccl#10720 (a fallback allocator rejected because it \"breaks execution guarantees silently\"), ggml-org/llama.cpp#22155 (an allocation retried after an out-of-memory by a path that was not safe)'),
 [("""    if (pool_ == nullptr || !keep(cudaMallocFromPoolAsync(&p, bytes, pool_, s))) return nullptr;
    return p;""",
   """    if (pool_ != nullptr && cudaMallocFromPoolAsync(&p, bytes, pool_, s) == cudaSuccess) return p;
    // The pool cannot serve it: take the block where the device can.
    (void)cudaGetLastError();
    p = nullptr;
    if (!keep(cudaMallocAsync(&p, bytes, s))) return nullptr;
    return p;""")]),
]
