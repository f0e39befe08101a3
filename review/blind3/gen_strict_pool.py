import sys; sys.path.insert(0, '.')
from mk import build
src = open('../../exercises/day071/strict_pool.cu').read()
D = 'strict-pool/'
correct = [
("""    // TODO 1: ask the device whether it supports memory pools.
    (void)device;
    return false;""",
"""    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return v == 1;"""),
("""private:
    // TODO 2: what the pool keeps: the pool itself, whatever hand needs,
    // and the first error.
};""",
"""private:
    // keep records a call's result: the first failure stays.
    void keep(cudaError_t e) {
        if (err_ == cudaSuccess && e != cudaSuccess) err_ = e;
    }
    cudaMemPool_t pool_ = nullptr;
    cudaEvent_t handed_ = nullptr; // one event for every hand (see hand)
    cudaError_t err_ = cudaSuccess;
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
    keep(cudaMemPoolCreate(&pool_, &props));
    if (err_ != cudaSuccess) {
        pool_ = nullptr;
        return;
    }
    int off = 0;
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, &off));
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off));
    keep(cudaEventCreateWithFlags(&handed_, cudaEventDisableTiming));
}"""),
("""StrictPool::~StrictPool() {
}""",
"""StrictPool::~StrictPool() {
    if (handed_ != nullptr) cudaEventDestroy(handed_);
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
    void* p = nullptr;
    cudaError_t e = cudaMallocFromPoolAsync(&p, bytes, pool_, s);
    if (e != cudaSuccess) {
        keep(e);
        return nullptr;
    }
    return p;
}"""),
("""void StrictPool::put(void* p, cudaStream_t s) {
    (void)p;
    (void)s;
}""",
"""void StrictPool::put(void* p, cudaStream_t s) {
    if (p == nullptr) return;
    keep(cudaFreeAsync(p, s));
}"""),
("""// TODO 8: order to after what from has queued so far; the host goes on.
void StrictPool::hand(cudaStream_t from, cudaStream_t to) {
    (void)from;
    (void)to;
}""",
"""// One event for every hand: each hand records it and queues the wait at
// once, from this one host thread, and a queued wait keeps the mark it
// took, so a later record cannot move it. The least to keep and destroy.
void StrictPool::hand(cudaStream_t from, cudaStream_t to) {
    keep(cudaEventRecord(handed_, from));
    keep(cudaStreamWaitEvent(to, handed_, 0));
}"""),
("""int StrictPool::policy(cudaMemPoolAttr attr) {
    (void)attr;
    return -1;
}""",
"""int StrictPool::policy(cudaMemPoolAttr attr) {
    int v = -1;
    cudaError_t e = cudaMemPoolGetAttribute(pool_, attr, &v);
    if (e != cudaSuccess) {
        keep(e);
        return -1;
    }
    return v;
}"""),
("""uint64_t StrictPool::reserved_high() {
    return 0;
}""",
"""uint64_t StrictPool::reserved_high() {
    uint64_t v = 0;
    keep(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &v));
    return v;
}"""),
]
H = """kind: correct
mistake: none: pools asked with cudaDevAttrMemoryPoolsSupported, a pool of its own with
  opportunistic reuse and internal dependencies off, the first error kept, get/put with
  cudaMallocFromPoolAsync/cudaFreeAsync, hand by one event made once (record on from,
  wait on to), the policies and the reserved mark asked of the pool, the event and the
  pool destroyed.
why it is wrong: it is not (lesson day 71, "The exercise: a strict pool": one event for
  every hand).
source: own"""
body = build(src, D + 'correct.cu', H, correct)
def wrong(slug, header, pairs):
    build(body, D + 'wrong-' + slug + '.cu', header, pairs)

wrong('supported-from-handle-types', """kind: wrong (an API misread; a branch the defaults never take)
mistake: pools_supported asks cudaDevAttrMemoryPoolSupportedHandleTypes (the attribute
  next to it in the lesson) and says yes when it is not zero.
why it is wrong: the lesson says cudaDevAttrMemoryPoolsSupported is what says whether
  pools exist; the handle types attribute says which export handles a pool may have
  (lesson day 71, "Before any of this: does the device have pools?"; runtime API,
  cudaDeviceAttr). A device with pools but no exportable handle type is told it has none,
  and the answer rests on an attribute that does not say what is asked; on the H200
  under Linux both are non-zero.
source: own""", [
("""    if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return v == 1;""",
"""    if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolSupportedHandleTypes, device) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return v != 0;"""),
])

wrong('reserved-high-into-int', """kind: wrong (an API misread the output does not show)
mistake: reserved_high reads cudaMemPoolAttrReservedMemHigh into an int, as policy reads
  the reuse policies.
why it is wrong: the reserved and used attributes are 64-bit (cuuint64_t); the call
  writes 8 bytes through a pointer to 4 (CUDA Runtime API, cudaMemPoolGetAttribute; the
  exercise's TODO: "a 64-bit attribute, cuuint64_t"): the next 4 bytes of the stack are
  overwritten, and a figure of 4 GiB or more is cut. Every size this program takes fits
  in 32 bits and the bytes overwritten are the upper half, zero.
source: own (the lesson's own pitfall, day 69: "Pool attributes are uint64_t")""", [
("""    uint64_t v = 0;
    keep(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &v));
    return v;""",
"""    int v = 0;
    keep(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &v));
    return v;"""),
])

wrong('error-last-not-first', """kind: wrong (a branch the defaults never take)
mistake: the pool keeps the result of its last call rather than its first failure, so a
  failed record in hand is wiped out by the wait that follows it, and a failed policy
  setting by the event creation after it.
why it is wrong: the class promises "the first CUDA error any of the pool's calls met";
  a hand whose record failed orders nothing, and main goes on as if B were ordered after
  A. With no failure the program behaves the same.
source: own""", [
("""    void keep(cudaError_t e) {
        if (err_ == cudaSuccess && e != cudaSuccess) err_ = e;
    }""",
"""    void keep(cudaError_t e) {
        err_ = e;
    }"""),
])

wrong('pool-not-destroyed', """kind: wrong (leak the output does not show)
mistake: the destructor destroys the hand's event but not the pool.
why it is wrong: a pool made with cudaMemPoolCreate lives until cudaMemPoolDestroy
  (CUDA Runtime API, cudaMemPoolDestroy); the exercise's destructor gives back "what the
  constructor made". Its reserved memory was freed, so the output is the same.
source: own""", [
("""    if (pool_ != nullptr) cudaMemPoolDestroy(pool_);
""", ""),
])

wrong('get-syncs-and-retries', """kind: wrong (a host wait on a branch the defaults never take)
mistake: when an allocation fails, get synchronises the stream, trims the pool and tries
  once more, as a caching allocator does on out-of-memory, before it reports the error.
why it is wrong: the exercise wants a failure kept for error() and the host never waiting
  inside the loop (lesson day 71: "the host never waits inside the loop"; with the
  policies off "the allocation fails, and you see it"); a host wait also makes the
  driver hand over frees it knows complete "regardless of ... disabled allocation
  policies" (the Guide's "Synchronization API Actions"), which is exactly the crossing
  this pool exists to forbid. The defaults never fail an allocation.
source: https://github.com/pytorch/pytorch/blob/main/c10/cuda/CUDACachingAllocator.cpp
  (PyTorch's caching allocator frees cached blocks and retries the allocation after
  an out-of-memory, synchronising first)""", [
("""    cudaError_t e = cudaMallocFromPoolAsync(&p, bytes, pool_, s);
    if (e != cudaSuccess) {""",
"""    cudaError_t e = cudaMallocFromPoolAsync(&p, bytes, pool_, s);
    if (e != cudaSuccess) {
        // Out of memory: let what is queued finish, give back what the
        // pool keeps, and try once more.
        cudaGetLastError();
        cudaStreamSynchronize(s);
        cudaMemPoolTrimTo(pool_, 0);
        e = cudaMallocFromPoolAsync(&p, bytes, pool_, s);
    }
    if (e != cudaSuccess) {"""),
])
