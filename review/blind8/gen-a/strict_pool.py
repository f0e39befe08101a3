"""strict-pool: the correct design and four wrong files (blind8, first half)."""
from mk import student, edit, header, write, wrong

EX, EXT = "strict-pool", "cu"
t = student("exercises/day071/strict_pool.cu")

t = edit(t, """static bool pools_supported(int device) {
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

t = edit(t, """private:
    // TODO 2: what the pool keeps: the pool itself, whatever hand needs,
    // and the first error.
};""", """private:
    // keep notes err as the first error if there is none yet, and says
    // whether err was a success.
    bool keep(cudaError_t err) {
        if (err != cudaSuccess && first_ == cudaSuccess) first_ = err;
        return err == cudaSuccess;
    }
    // arrival is the event of the stream a hand goes to, made the first
    // time a hand goes there; nullptr when it cannot be made.
    cudaEvent_t arrival(cudaStream_t to);

    cudaMemPool_t pool_ = nullptr;
    struct Arrival {
        cudaStream_t to;
        cudaEvent_t event;
    };
    std::vector<Arrival> arrivals_;
    cudaError_t first_ = cudaSuccess;
};""")

t = edit(t, """#include <cuda_runtime.h>
""", """#include <vector>
#include <cuda_runtime.h>
""")

t = edit(t, """StrictPool::StrictPool(int device) {
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
    const int off = 0, on = 1;
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, (void*)&off));
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, (void*)&off));
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseFollowEventDependencies, (void*)&on));
}""")

t = edit(t, """StrictPool::~StrictPool() {
}""", """StrictPool::~StrictPool() {
    for (const Arrival& a : arrivals_) cudaEventDestroy(a.event);
    if (pool_ != nullptr) cudaMemPoolDestroy(pool_);
}""")

t = edit(t, """cudaError_t StrictPool::error() const {
    return cudaErrorNotYetImplemented;
}""", """cudaError_t StrictPool::error() const {
    return first_;
}""")

t = edit(t, """void* StrictPool::get(size_t bytes, cudaStream_t s) {
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
}""")

t = edit(t, """void StrictPool::put(void* p, cudaStream_t s) {
    (void)p;
    (void)s;
}""", """void StrictPool::put(void* p, cudaStream_t s) {
    keep(cudaFreeAsync(p, s));
}

cudaEvent_t StrictPool::arrival(cudaStream_t to) {
    for (const Arrival& a : arrivals_)
        if (a.to == to) return a.event;
    cudaEvent_t e = nullptr;
    if (!keep(cudaEventCreateWithFlags(&e, cudaEventDisableTiming))) return nullptr;
    arrivals_.push_back({to, e});
    return e;
}""")

t = edit(t, """void StrictPool::hand(cudaStream_t from, cudaStream_t to) {
    (void)from;
    (void)to;
}""", """// hand keeps one event per stream that receives hands (made at its first
// hand): a hand records it on from and queues to's wait at once, and a
// wait takes the mark the event holds when it is queued, so a later hand
// to the same stream may record it again. Two host threads handing to one
// stream at once would need a lock; here one thread hands.
void StrictPool::hand(cudaStream_t from, cudaStream_t to) {
    cudaEvent_t e = arrival(to);
    if (e == nullptr) return;
    if (!keep(cudaEventRecord(e, from))) return;
    keep(cudaStreamWaitEvent(to, e, 0));
}""")

t = edit(t, """int StrictPool::policy(cudaMemPoolAttr attr) {
    (void)attr;
    return -1;
}""", """int StrictPool::policy(cudaMemPoolAttr attr) {
    int v = -1;
    if (pool_ == nullptr || !keep(cudaMemPoolGetAttribute(pool_, attr, &v))) return -1;
    return v;
}""")

t = edit(t, """uint64_t StrictPool::reserved_high() {
    return 0;
}""", """uint64_t StrictPool::reserved_high() {
    uint64_t v = 0;
    if (pool_ == nullptr || !keep(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &v))) return 0;
    return v;
}""")

write(EX, "correct.cu", header(
    "correct",
    "none: one event per stream that receives hands (keyed by the stream handed to, made at its first hand, kept in a vector and destroyed with the pool); the two policies off and event dependencies set on explicitly; the first error kept by a keep() helper that every call goes through.",
    "none: it is correct.",
    "none (written from the lesson and the student file)."), t)
correct = t

wrong(EX, EXT, correct, "arrival-events-never-destroyed",
      "wrong (leak: the pool's events outlive it)",
      "the destructor destroys the pool but not the events hand made, one for each stream handed to.",
      "what the pool makes it must give back; two events leak with every StrictPool, and a program that makes pools in a loop leaks two a pool; nothing printed shows it.",
      "tromp/cuckoo#69 (cudaEventCreate without cudaEventDestroy), pytorch/pytorch#38313 (events made in a wrapper and never destroyed: a leak found only by profiling in a loop)",
      [("""    for (const Arrival& a : arrivals_) cudaEventDestroy(a.event);
    if (pool_ != nullptr) cudaMemPoolDestroy(pool_);""", """    if (pool_ != nullptr) cudaMemPoolDestroy(pool_);""")])

wrong(EX, EXT, correct, "pool-made-the-devices-current",
      "wrong (the device's current pool changed for the whole process; the output right)",
      "the constructor makes the new pool the device's current pool (cudaDeviceSetMemPool) and get allocates with plain cudaMallocAsync, which then draws from it; the device's current pool is never set back.",
      "the pool was to be StrictPool's own: from the constructor on every cudaMallocAsync of the process on that device, any library's included, comes from a pool with opportunistic reuse and inserted dependencies off, for as long as the pool lives (the runtime puts the default pool back only when the current one is destroyed).",
      "cupy/cupy#5191 (the 'current' mempool that cudaDeviceSetMemPool sets is picked up by every library that allocates without naming a pool), rapidsai/rmm#676 (review: not to set an own pool as the device's pool, but to allocate from it with cudaMallocFromPoolAsync)",
      [("""    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseFollowEventDependencies, (void*)&on));
}""", """    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseFollowEventDependencies, (void*)&on));
    keep(cudaDeviceSetMemPool(device, pool_));
}"""),
       ("""    if (!keep(cudaMallocFromPoolAsync(&p, bytes, pool_, s))) return nullptr;""",
        """    if (!keep(cudaMallocAsync(&p, bytes, s))) return nullptr;""")])

wrong(EX, EXT, correct, "hand-links-the-streams-once",
      "wrong (from the second round on B is ordered after nothing A did: the pool grows a second block)",
      "hand records and queues the wait only when it makes the receiving stream's event, at the first hand to that stream, taking the wait to link the two streams for good; later hands to the same stream do nothing.",
      "a wait orders the receiving stream after the mark the event held when the wait was queued, not after anything the other stream queues later: from round 2 on B's get is ordered after no put of A's, and with the strict policies the pool cannot give B A's block.",
      "kokkos/kokkos#9122 (review: a stream made dependent on an event does not run later work until that event has occurred: a dependency on one recorded point), meta-pytorch/torchcodec#1653 (waiting for an event rather than for another stream's currently enqueued work)",
      [("""    cudaEvent_t e = arrival(to);
    if (e == nullptr) return;
    if (!keep(cudaEventRecord(e, from))) return;
    keep(cudaStreamWaitEvent(to, e, 0));""", """    const size_t known = arrivals_.size();
    cudaEvent_t e = arrival(to);
    if (e == nullptr || arrivals_.size() == known) return;  // already linked
    if (!keep(cudaEventRecord(e, from))) return;
    keep(cudaStreamWaitEvent(to, e, 0));""")])

wrong(EX, EXT, correct, "policies-set-unchecked",
      "wrong (an error path: a policy the driver refuses leaves the pool lax and error() says nothing)",
      "the constructor sets the three reuse policies without looking at what cudaMemPoolSetAttribute returns, so a refused setting is not kept for error().",
      "the pool's one promise is that its policies are off; when a setting fails (a driver that does not have the attribute, a pool created wrong) the program goes on with a pool that may still reuse across streams by itself, and no check of error() stops it; on the H200 the calls succeed, so only a failure injected there shows it.",
      "NVIDIA/cccl#1854 (review of a pool wrapper: every cudaMemPoolSetAttribute of the pool's reuse policy and threshold wrapped in a checked call), the lesson's own rule that the first failure is kept for error()",
      [("""    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, (void*)&off));
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, (void*)&off));
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseFollowEventDependencies, (void*)&on));""", """    cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, (void*)&off);
    cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, (void*)&off);
    cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseFollowEventDependencies, (void*)&on);""")])
