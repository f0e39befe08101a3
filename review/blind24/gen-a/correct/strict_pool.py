EX = "strict-pool"
STUDENT = "exercises/day071/strict_pool.cu"
DESIGN = ("a NEW event for every hand (timing off), recorded on from and waited for by to at once, and KEPT: the pool holds them in a std::vector until its "
          "destructor destroys them all (before the pool), so the default run makes and destroys 12 events; a keep() member notes the first failure; the pool from "
          "value-initialised props with only the two policies written (opportunistic 0, internal dependencies 0, through an int; following event dependencies left "
          "at the default 1, not written); get through cudaMallocFromPoolAsync; policy and reserved_high asked of the pool (an int, a uint64_t), a failed question kept "
          "as the error; pools_supported asks cudaDevAttrMemoryPoolsSupported, a failed question taken for no")
EDITS = [
("""#include <cuda_runtime.h>
""",
"""#include <cuda_runtime.h>
#include <vector>
"""),
("""static bool pools_supported(int device) {
    // TODO 1: ask the device whether it supports memory pools.
    (void)device;
    return false;
}""",
"""static bool pools_supported(int device) {
    int yes = 0;
    if (cudaDeviceGetAttribute(&yes, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return yes != 0;
}"""),
("""private:
    // TODO 2: what the pool keeps: the pool itself, whatever hand needs,
    // and the first error.
};""",
"""private:
    cudaMemPool_t pool_ = nullptr;
    // One event per hand, made there and kept until the destructor: the
    // wait queued on it is all the driver needs to follow the hand.
    std::vector<cudaEvent_t> handed_;
    cudaError_t err_ = cudaSuccess;
    // keep notes e when it is the first failure.
    void keep(cudaError_t e) {
        if (err_ == cudaSuccess && e != cudaSuccess) err_ = e;
    }
};"""),
("""StrictPool::StrictPool(int device) {
    (void)device;
}""",
"""StrictPool::StrictPool(int device) {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    const cudaError_t made = cudaMemPoolCreate(&pool_, &props);
    keep(made);
    if (made != cudaSuccess) {
        pool_ = nullptr;
        return;
    }
    // Following the program's events stays as a new pool has it (on).
    int off = 0;
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, &off));
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off));
}"""),
("""StrictPool::~StrictPool() {
}""",
"""StrictPool::~StrictPool() {
    for (size_t i = 0; i < handed_.size(); i++) cudaEventDestroy(handed_[i]);
    handed_.clear();
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
    if (pool_ == nullptr) return nullptr;
    void* p = nullptr;
    const cudaError_t e = cudaMallocFromPoolAsync(&p, bytes, pool_, s);
    keep(e);
    return e == cudaSuccess ? p : nullptr;
}"""),
("""void StrictPool::put(void* p, cudaStream_t s) {
    (void)p;
    (void)s;
}""",
"""void StrictPool::put(void* p, cudaStream_t s) {
    keep(cudaFreeAsync(p, s));
}"""),
("""void StrictPool::hand(cudaStream_t from, cudaStream_t to) {
    (void)from;
    (void)to;
}""",
"""void StrictPool::hand(cudaStream_t from, cudaStream_t to) {
    cudaEvent_t e = nullptr;
    const cudaError_t made = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    keep(made);
    if (made != cudaSuccess) return;
    handed_.push_back(e);
    keep(cudaEventRecord(e, from));
    keep(cudaStreamWaitEvent(to, e, 0));
}"""),
("""int StrictPool::policy(cudaMemPoolAttr attr) {
    (void)attr;
    return -1;
}""",
"""int StrictPool::policy(cudaMemPoolAttr attr) {
    int v = -1;
    if (pool_ == nullptr) return -1;
    const cudaError_t e = cudaMemPoolGetAttribute(pool_, attr, &v);
    keep(e);
    return e == cudaSuccess ? v : -1;
}"""),
("""uint64_t StrictPool::reserved_high() {
    return 0;
}""",
"""uint64_t StrictPool::reserved_high() {
    uint64_t v = 0;
    if (pool_ == nullptr) return 0;
    keep(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &v));
    return v;
}"""),
]
