STUDENT = "exercises/day087/stream_pools.cu"
DIR = "stream-pools"
EXT = "cu"
COMMENT = "//"
CORRECT_HEADER = dict(
    kind="correct (a design of its own)",
    mistake="""none. pool_alloc works on the cooperative-groups coalesced group of
    the asking lanes: an inclusive scan of the rounded sizes with the group's
    shfl_up (ranks, not lanes), the group's LAST rank, which holds the total,
    moves the offset with a compare-and-swap loop that never passes the
    capacity, raises the high-water mark with atomicMax, counts every refused
    request of the group, and broadcasts the run's start (or a refusal) with the
    group's shfl. StreamPools: one cudaMallocAsync on streams[0] holding every
    slice and, after them, every pool's counters; an event forks the allocation
    to the other streams, each clearing its own pool's counters in its order;
    destroy frees with cudaFree after main's device synchronisation.""",
    why="""it is not: each asking lane's block starts where the lower-ranked asking
    lanes' blocks end; the offset only ever holds values within capacity; every
    pool's counters are cleared in its own stream's order after the allocation;
    nothing waits on the host.""",
    source="""own design from the lesson (day 87, "One atomic per warp", "A pool that
    counts", "Exercise: per-stream pools"); the CUDA Programming Guide,
    "Cooperative Groups" (coalesced_threads, shfl_up, shfl).""")

CORRECT = [
("""#include <cuda_runtime.h>
""",
"""#include <cuda_runtime.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
"""),
("""__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    (void)p;
    (void)bytes;
    return nullptr;
}""",
"""__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    cg::coalesced_group g = cg::coalesced_threads();
    const unsigned long long mine = (bytes + kAlign - 1) / kAlign * kAlign;
    // inclusive scan over the asking lanes, by rank
    unsigned long long incl = mine;
    for (unsigned d = 1; d < g.size(); d *= 2) {
        const unsigned long long v = g.shfl_up(incl, d);
        if (g.thread_rank() >= d) incl += v;
    }
    const unsigned last = g.size() - 1;
    unsigned long long start = ~0ull;   // the run's start, or ~0 for a refusal
    if (g.thread_rank() == last) {
        const unsigned long long total = incl;
        unsigned long long seen = *(volatile unsigned long long*)&p.counters->offset;
        for (;;) {
            if (seen + total > p.capacity) {
                atomicAdd(&p.counters->failed, (unsigned long long)g.size());
                break;
            }
            const unsigned long long was = atomicCAS(&p.counters->offset, seen, seen + total);
            if (was == seen) {
                atomicMax(&p.counters->high, seen + total);
                start = seen;
                break;
            }
            seen = was;
        }
    }
    start = g.shfl(start, last);
    if (start == ~0ull) return nullptr;
    return p.base + start + (incl - mine);
}"""),
("""    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        (void)n;
        (void)slice;
        (void)streams;
    }""",
"""    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        n_ = n;
        slice_ = slice;
        void* p = nullptr;
        CHECK(cudaMallocAsync(&p, n * slice + n * sizeof(PoolCounters), streams[0]));
        arena_ = static_cast<char*>(p);
        counters_ = reinterpret_cast<PoolCounters*>(arena_ + n * slice);
        cudaEvent_t made;
        CHECK(cudaEventCreateWithFlags(&made, cudaEventDisableTiming));
        CHECK(cudaEventRecord(made, streams[0]));
        for (int i = 0; i < n; i++) {
            if (i > 0) CHECK(cudaStreamWaitEvent(streams[i], made, 0));
            CHECK(cudaMemsetAsync(counters_ + i, 0, sizeof(PoolCounters), streams[i]));
        }
        CHECK(cudaEventDestroy(made));
    }"""),
("""    DevicePool pool(int i) const {
        (void)i;
        return DevicePool{nullptr, 0, nullptr};
    }""",
"""    DevicePool pool(int i) const {
        return DevicePool{arena_ + (size_t)i * slice_, slice_, counters_ + i};
    }"""),
("""    void reset(int i, cudaStream_t s) {
        (void)i;
        (void)s;
    }
    void used(int i, cudaStream_t s, PoolCounters* to) {
        (void)i;
        (void)s;
        (void)to;
    }""",
"""    void reset(int i, cudaStream_t s) {
        CHECK(cudaMemsetAsync(&counters_[i].offset, 0, sizeof(unsigned long long), s));
    }
    void used(int i, cudaStream_t s, PoolCounters* to) {
        CHECK(cudaMemcpyAsync(to, counters_ + i, sizeof(PoolCounters), cudaMemcpyDeviceToHost, s));
    }"""),
("""    void destroy() {
    }

private:
    // What init keeps for pool(), reset(), used() and destroy().
};""",
"""    void destroy() {
        // main synchronised the device first: no work uses the arena now
        if (arena_ != nullptr) CHECK(cudaFree(arena_));
        arena_ = nullptr;
        counters_ = nullptr;
    }

private:
    int n_ = 0;
    unsigned long long slice_ = 0;
    char* arena_ = nullptr;               // every slice, then every pool's counters
    PoolCounters* counters_ = nullptr;
};"""),
]

WRONG = [
("leader-is-lane-zero", dict(
    kind="a wrong lane: warp lane 0 taken for the lane that moves the offset",
    mistake="""the lane that moves the offset is the warp's lane 0 (threadIdx.x % 32 ==
    0), and the run's start is broadcast from the group's rank 0, as if lane 0
    always asked; when lane 0 asks for nothing, no asking lane moves the
    offset.""",
    why="""the asking lanes are not always all 32 and not always lane 0: in a warp
    whose lane 0 asks for nothing no lane moves the offset, and every asking
    lane gets the unset start, a refusal, though the pool has room: requests
    fail in the ordinary rounds (where lane 0 asks, the run is right, so only
    some warps of some rounds show it).""",
    source="""ComputationalRadiationPhysics/picongpu#4825 ("fix atomicAllInc()": a
    warp-aggregated atomic that assumed which lanes were active, "particles
    silently get deleted and other particles get cloned"); ROCm/hip#1161
    (__lanemask_lt, used to elect the leader in warp-aggregated atomics,
    broken)."""),
 [("""    const unsigned last = g.size() - 1;
    unsigned long long start = ~0ull;   // the run's start, or ~0 for a refusal
    if (g.thread_rank() == last) {
        const unsigned long long total = incl;""",
   """    const unsigned last = 0;
    const unsigned long long sum = g.shfl(incl, g.size() - 1);
    unsigned long long start = ~0ull;   // the run's start, or ~0 for a refusal
    if (threadIdx.x % kWarp == 0) {
        const unsigned long long total = sum;""")]),
("high-mark-by-plain-store", dict(
    kind="a race in a kernel: the high-water mark raised by a read and a store",
    mistake="""the lane that moved the offset raises the high-water mark with `if (new
    > high) high = new;` on the counters in global memory, a read and a store,
    instead of atomicMax.""",
    why="""warps of the kernel race on it: two read the same old mark, the one with
    the smaller value stores last, and the mark ends below the most the offset
    reached; the program's high-water marks then disagree with what the rounds
    held.""",
    source="""logicflowlearn.com/en/courses/cuda-gpu-programming/lessons/lesson-23 (a
    read-modify-write split into steps loses updates when threads interleave);
    the lesson's "A pool that counts" (atomicMax for the mark)."""),
 [("""                atomicMax(&p.counters->high, seen + total);""",
   """                if (seen + total > p.counters->high) p.counters->high = seen + total;""")]),
("arena-freed-on-destroyed-stream", dict(
    kind="a stream that no longer exists: the arena freed in order of a destroyed stream",
    mistake="""init keeps the streams' handles, and destroy gives the arena back with
    cudaFreeAsync on the first of them; main has destroyed the streams by then.""",
    why="""a destroyed stream's handle is invalid: the free fails with an invalid
    resource handle (or worse, names a stream created since with the same
    handle), and the arena is never given back.""",
    source="""cupy/cupy#4537 (cudaMallocAsync on a stream, the stream destroyed, then
    cudaFreeAsync(ptr, old stream): "in Python I got cudaErrorInvalidResourceHandle
    while in C I got cudaErrorContextIsDestroyed")."""),
 [("""        n_ = n;
        slice_ = slice;""",
   """        n_ = n;
        slice_ = slice;
        first_ = streams[0];"""),
  ("""        if (arena_ != nullptr) CHECK(cudaFree(arena_));""",
   """        if (arena_ != nullptr) cudaFreeAsync(arena_, first_);"""),
  ("""    char* arena_ = nullptr;               // every slice, then every pool's counters""",
   """    char* arena_ = nullptr;               // every slice, then every pool's counters
    cudaStream_t first_ = nullptr;        // the stream init allocated on""")]),
]
