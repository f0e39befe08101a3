from mk import build

CORRECT = dict(
    kind='correct (a design of its own)',
    mistake='none. hand makes an event for each hand: created, recorded on from, waited for on to, destroyed at once (the lesson\'s third design). The pool is its own, with opportunistic reuse and internal dependencies off; every call\'s error goes through keep(), which holds the first.',
    **{'why it is wrong': 'it is not: the only way A\'s block reaches B is the event B waits for, recorded after A\'s put; the event is destroyed after the wait is queued, which the runtime allows; policy and reserved_high ask the pool itself, into an int and a uint64_t.'},
    source='the lesson (day 71, "The exercise: a strict pool", one event made for each hand); the runtime API reference, cudaEventDestroy (an event destroyed while recorded work is incomplete is released once it completes) and cudaMemPoolSetAttribute.',
)

C = [
("""static bool pools_supported(int device) {
    // TODO 1: ask the device whether it supports memory pools.
    (void)device;
    return false;
}""",
"""static bool pools_supported(int device) {
    // TODO 1: ask the device whether it supports memory pools.
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return v != 0;
}"""),
("""    // TODO 2: what the pool keeps: the pool itself, whatever hand needs,
    // and the first error.
};""",
"""    // TODO 2: what the pool keeps: the pool itself, whatever hand needs,
    // and the first error. (hand needs nothing kept: see hand.)
    cudaMemPool_t pool_ = nullptr;
    cudaError_t first_ = cudaSuccess;
    // keep remembers err if it is the first failure.
    void keep(cudaError_t err) {
        if (err != cudaSuccess && first_ == cudaSuccess) first_ = err;
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
    cudaError_t err = cudaMemPoolCreate(&pool_, &props);
    if (err != cudaSuccess) {
        pool_ = nullptr;
        keep(err);
        return;
    }
    int off = 0;   // the reuse policies are int attributes, 0 or 1
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, &off));
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off));
}"""),
("""StrictPool::~StrictPool() {
}""",
"""StrictPool::~StrictPool() {
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
    if (pool_ == nullptr) {
        keep(cudaErrorInvalidValue);
        return nullptr;
    }
    void* p = nullptr;
    cudaError_t err = cudaMallocFromPoolAsync(&p, bytes, pool_, s);
    if (err != cudaSuccess) {
        keep(err);
        return nullptr;
    }
    return p;
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
"""//
// The design: one event made for each hand. Nothing is kept between hands,
// so two host threads handing at once can never record over each other's
// event, and there is no table to keep or to destroy; the price is a
// create and a destroy every hand. Destroying the event right after the
// wait is queued is allowed: the wait took its mark when it was queued,
// and the runtime releases the event once the device has completed it.
void StrictPool::hand(cudaStream_t from, cudaStream_t to) {
    cudaEvent_t e;
    cudaError_t err = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    if (err != cudaSuccess) {
        keep(err);
        return;
    }
    keep(cudaEventRecord(e, from));
    keep(cudaStreamWaitEvent(to, e, 0));
    keep(cudaEventDestroy(e));
}"""),
("""int StrictPool::policy(cudaMemPoolAttr attr) {
    (void)attr;
    return -1;
}""",
"""int StrictPool::policy(cudaMemPoolAttr attr) {
    int v = -1;
    cudaError_t err = pool_ == nullptr ? cudaErrorInvalidValue : cudaMemPoolGetAttribute(pool_, attr, &v);
    if (err != cudaSuccess) {
        keep(err);
        return -1;
    }
    return v;
}"""),
("""uint64_t StrictPool::reserved_high() {
    return 0;
}""",
"""uint64_t StrictPool::reserved_high() {
    uint64_t v = 0;
    cudaError_t err = pool_ == nullptr ? cudaErrorInvalidValue : cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &v);
    if (err != cudaSuccess) {
        keep(err);
        return 0;
    }
    return v;
}"""),
]

W = []

W.append(('follow-events-off', dict(
    kind='an API used with the wrong attribute',
    mistake='the constructor turns off cudaMemPoolReuseFollowEventDependencies where it meant cudaMemPoolReuseAllowInternalDependencies (the names sit side by side in the enum).',
    **{'why it is wrong': 'following the program\'s events is the one policy a strict pool must keep: with it off, B may not take A\'s block even after its wait, so the pool reserves a second block every round, and the driver may still insert dependencies of its own, which stays on.'},
    source='the lesson (day 71: "opportunistic reuse and the driver\'s own inserted dependencies are off; following the program\'s events stays on"); NVlabs/cutile-rs#142 (the three REUSE_* booleans exposed together).',
), [
("""    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off));
}""",
"""    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseFollowEventDependencies, &off));
}"""),
]))

W.append(('policy-from-bool', dict(
    kind='an API used with the wrong type',
    mistake='the constructor passes the address of a bool false to cudaMemPoolSetAttribute for the two policies.',
    **{'why it is wrong': 'the reuse policies are int attributes: the driver reads four bytes from a one-byte variable, three of them whatever lies beside it on the stack. Where they are not zero the policy stays on, so whether the pool is strict depends on the stack; policy() then reads back 1 on some builds and runs.'},
    source='NVIDIA/cuda-python#1272 (an attribute passed with the wrong width: the driver reads or writes the attribute\'s own size); the lesson (day 70: "Set them with cudaMemPoolSetAttribute(pool, attr, &value) (an int, 0 or 1)").',
), [
("""    int off = 0;   // the reuse policies are int attributes, 0 or 1""",
"""    bool off = false;   // the reuse policies are on/off"""),
]))

W.append(('hand-reversed', dict(
    kind='ordering between streams: the record and the wait swapped',
    mistake='hand records the event on to and makes from wait for it.',
    **{'why it is wrong': 'that orders from after to, the opposite of what hand promises: B\'s get is not ordered after A\'s put, so the strict pool cannot give B A\'s block and reserves a second one every round, and A is needlessly held behind B.'},
    source='the lesson (day 70: "cudaEventRecord(e, a) after the work that must come first, cudaStreamWaitEvent(b, e, 0) before the work that needs it").',
), [
("""    keep(cudaEventRecord(e, from));
    keep(cudaStreamWaitEvent(to, e, 0));""",
"""    keep(cudaEventRecord(e, to));
    keep(cudaStreamWaitEvent(from, e, 0));"""),
]))

W.append(('event-destroyed-before-wait', dict(
    kind='a misplaced call: an event destroyed before its wait is queued',
    mistake='hand destroys the event right after recording it, then queues the wait on the destroyed handle, reading "destroy right after" as right after the record.',
    **{'why it is wrong': 'only a wait already queued keeps the mark: cudaStreamWaitEvent on a destroyed event is a use after free of the handle, which fails (invalid resource handle) or, if the handle was reused, waits for something else.'},
    source='intel/llvm commit 7fe41dd ("cuEventRecord is asynchronous, so destroying the event immediately after recording caused undefined behavior"); the lesson (day 71: "Destroying it right after the wait is queued is allowed").',
), [
("""    keep(cudaEventRecord(e, from));
    keep(cudaStreamWaitEvent(to, e, 0));
    keep(cudaEventDestroy(e));""",
"""    keep(cudaEventRecord(e, from));
    keep(cudaEventDestroy(e));   // the record holds the mark
    keep(cudaStreamWaitEvent(to, e, 0));"""),
]))

W.append(('supported-from-version', dict(
    kind='a latent branch: a capability guessed from a version number',
    mistake='pools_supported answers from the driver version (CUDA 11.2 or later) instead of asking the device.',
    **{'why it is wrong': 'pools need a driver and a device that support them, and not every platform does whatever the version: on such a device the program goes on to create a pool and fails instead of saying so. The course\'s GPU supports pools, so no run shows it.'},
    source='the lesson (day 71, "Before any of this: does the device have pools?": "CUDA 11.2 or later; not every platform"); NVIDIA/cccl#3975 (the pool checks cudaDevAttrMemoryPoolsSupported before use).',
), [
("""    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return v != 0;""",
"""    (void)device;
    int v = 0;   // stream-ordered allocation came with CUDA 11.2
    if (cudaDriverGetVersion(&v) != cudaSuccess) return false;
    return v >= 11020;"""),
]))

build('strict-pool', 'exercises/day071/strict_pool.cu', CORRECT, C, W)
