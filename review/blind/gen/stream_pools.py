ID = "stream-pools"
SRC = "exercises/day087/stream_pools.cu"
NOTE = "Correct design: pool_alloc with cooperative groups (coalesced_threads, exclusive_scan for each lane's place, reduce for the warp's total, rank 0 runs the atomicCAS loop and keeps the counters, shfl broadcasts); StreamPools keeps the arena and all pools' counters in ONE cudaMalloc (counters after the slices), each pool's counters cleared with cudaMemsetAsync on its own stream."
def H(kind, mistake, why, source):
    return {"kind": kind, "mistake": mistake, "why it is wrong": why, "source": source}
E = [
("""#include <cuda_runtime.h>

#define CHECK(call) """, """#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

#define CHECK(call) """),
("""__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    (void)p;
    (void)bytes;
    return nullptr;
}""", """__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    // The lanes asking now, ranked in lane order.
    cg::coalesced_group g = cg::coalesced_threads();
    const unsigned long long size = (bytes + kAlign - 1) / kAlign * kAlign;
    const unsigned long long place = cg::exclusive_scan(g, size);  // the asking lanes below this one
    const unsigned long long total = cg::reduce(g, size, cg::plus<unsigned long long>());
    unsigned long long at = 0;
    int fits = 0;
    if (g.thread_rank() == 0) {
        unsigned long long old = atomicAdd(&p.counters->offset, 0ull);
        while (total <= p.capacity && old <= p.capacity - total) {
            const unsigned long long seen = atomicCAS(&p.counters->offset, old, old + total);
            if (seen == old) {
                fits = 1;
                break;
            }
            old = seen;
        }
        if (fits) atomicMax(&p.counters->high, old + total);
        else atomicAdd(&p.counters->failed, (unsigned long long)g.size());
        at = old;
    }
    at = g.shfl(at, 0);
    fits = g.shfl(fits, 0);
    return fits ? p.base + at + place : nullptr;
}"""),
("""    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        (void)n;
        (void)slice;
        (void)streams;
    }""", """    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        n_ = n;
        slice_ = slice;
        // One allocation: the n slices, then the n pools' counters (the
        // slices are multiples of 16 bytes, so the counters are aligned).
        CHECK(cudaMalloc(&arena_, n * slice + n * sizeof(PoolCounters)));
        counters_ = reinterpret_cast<PoolCounters*>(arena_ + n * slice);
        for (int i = 0; i < n; i++) CHECK(cudaMemsetAsync(counters_ + i, 0, sizeof(PoolCounters), streams[i]));
    }"""),
("""    DevicePool pool(int i) const {
        (void)i;
        return DevicePool{nullptr, 0, nullptr};
    }""", """    DevicePool pool(int i) const {
        return DevicePool{arena_ + i * slice_, slice_, counters_ + i};
    }"""),
("""    void reset(int i, cudaStream_t s) {
        (void)i;
        (void)s;
    }
    void used(int i, cudaStream_t s, PoolCounters* to) {
        (void)i;
        (void)s;
        (void)to;
    }""", """    void reset(int i, cudaStream_t s) {
        CHECK(cudaMemsetAsync(&counters_[i].offset, 0, sizeof(unsigned long long), s));
    }
    void used(int i, cudaStream_t s, PoolCounters* to) {
        CHECK(cudaMemcpyAsync(to, counters_ + i, sizeof(PoolCounters), cudaMemcpyDeviceToHost, s));
    }"""),
("""    void destroy() {
    }""", """    void destroy() {
        if (arena_ != nullptr) CHECK(cudaFree(arena_));
        arena_ = nullptr;
        counters_ = nullptr;
    }"""),
("""    // What init keeps for pool(), reset(), used() and destroy().
};""", """    int n_ = 0;
    unsigned long long slice_ = 0;
    char* arena_ = nullptr;
    PoolCounters* counters_ = nullptr;
};"""),
]
CORRECT = (H("correct", "None intended: cooperative-groups warp aggregation (scan, reduce, CAS by rank 0, broadcast), arena and counters in one allocation, every counter operation in the pool's stream.", "n/a", "own"), E)
WRONGS = [
 ("init-memset-legacy",
  H("race with the legacy default stream",
    "init clears every pool's counters with one cudaMemset, as the first section's bump pool does. cudaMemset runs on the legacy default stream, which the four non-blocking streams never wait for; the harness's earlier cudaFree has synchronised the device, so the clear usually lands before the first kernel and the output is perfect, but nothing orders it.",
    "Day 87, 'Several streams, one pool' and 'A pool that counts': clear 'each pool's in its own stream's order: cudaMemsetAsync on that stream, not cudaMemset'.",
    "https://github.com/cupy/cupy/issues/3777 (the legacy default stream does not order non-blocking streams); the mistake is the lesson's own first example carried over"),
  [("""        for (int i = 0; i < n; i++) CHECK(cudaMemsetAsync(counters_ + i, 0, sizeof(PoolCounters), streams[i]));""",
    """        (void)streams;
        CHECK(cudaMemset(counters_, 0, n * sizeof(PoolCounters))); // every counter starts at 0""")]),
 ("add-then-rollback",
  H("the offset passes the capacity for a moment",
    "Instead of the atomicCAS loop, the leader does atomicAdd of the warp's total and, when the run does not fit, atomicSub's it back. Every block handed out is inside the pool and the offset read after the kernel is within capacity, but while a refused warp's add is not yet undone the offset exceeds the capacity, and another warp that would have fitted can be refused.",
    "Day 87, 'The bump pool on the device' and the exercise: 'The offset only ever moves to a value within the capacity', with the atomicCAS loop that only moves the offset when the request fits.",
    "own"),
  [("""        unsigned long long old = atomicAdd(&p.counters->offset, 0ull);
        while (total <= p.capacity && old <= p.capacity - total) {
            const unsigned long long seen = atomicCAS(&p.counters->offset, old, old + total);
            if (seen == old) {
                fits = 1;
                break;
            }
            old = seen;
        }""", """        unsigned long long old = atomicAdd(&p.counters->offset, total);
        if (old + total <= p.capacity) fits = 1;
        else atomicAdd(&p.counters->offset, 0ull - total); // did not fit: give it back (wraps to a subtraction)""")]),
 ("shfl-up-scan",
  H("a warp scan that reads lanes that are not there",
    "Each lane's place is computed with the textbook inclusive scan over __shfl_up_sync(mask, v, d), guarded by lane >= d, with the mask of the asking lanes. When some lanes ask for nothing, lane - d may be a lane outside the mask, whose value is undefined, so places can overlap or leave holes; the leader is still chosen right.",
    "Day 87, 'One atomic per warp' (Where does each lane's block go?): the textbook warp scan with __shfl_up_sync reads lane lane - d, which, when not every lane asks, may be a lane that is not there.",
    "https://developer.nvidia.com/blog/cuda-pro-tip-optimized-filtering-warp-aggregated-atomics/ (warp-aggregated atomics; the full-warp scan it builds on assumes every lane is active)"),
  [("""    const unsigned long long place = cg::exclusive_scan(g, size);  // the asking lanes below this one""",
    """    const unsigned mask = __activemask();
    const int lane = threadIdx.x % kWarp;
    unsigned long long incl = size;
    for (int d = 1; d < kWarp; d *= 2) {
        const unsigned long long v = __shfl_up_sync(mask, incl, d);
        if (lane >= d) incl += v;
    }
    const unsigned long long place = incl - size;  // the lanes below this one""")]),
 ("strict-capacity",
  H("off by one at the boundary",
    "The leader moves the offset only when old + total < capacity, not <=. A run that would fill the pool exactly is refused: in the rounds that never come near the capacity nothing shows, and only a pool filled to its last byte (the overflow round) sees one run refused too many and a high-water mark short of the capacity.",
    "Day 87, exercise: the run 'fits whole or not at all' and the offset moves to 'a value within the capacity' (capacity itself included).",
    "own"),
  [("""        while (total <= p.capacity && old <= p.capacity - total) {""",
    """        while (old + total < p.capacity) {""")]),
 ("counters-every-lane",
  H("32 atomics where one would do",
    "The offset is moved once per warp, but every asking lane then raises the high-water mark with its own block's end, and every refused lane adds 1 to the failed count. The figures come out the same, but each warp makes up to 64 atomics on two addresses instead of one or two.",
    "Day 87, 'A pool that counts': 'The lane that moved the offset is the one that knows both, so the warp still makes one or two atomics, not 64'; exercise: 'the same lane raises the high-water mark and counts what is refused'.",
    "own"),
  [("""        if (fits) atomicMax(&p.counters->high, old + total);
        else atomicAdd(&p.counters->failed, (unsigned long long)g.size());
        at = old;
    }
    at = g.shfl(at, 0);
    fits = g.shfl(fits, 0);""", """        at = old;
    }
    at = g.shfl(at, 0);
    fits = g.shfl(fits, 0);
    if (fits) atomicMax(&p.counters->high, at + place + size);
    else atomicAdd(&p.counters->failed, 1ull);""")]),
]
