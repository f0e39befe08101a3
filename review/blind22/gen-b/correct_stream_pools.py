import sys; sys.path.insert(0, "gen-b")
from fill import fill
H = ["kind: correct",
     "mistake: none. Design: the asking lanes from __activemask, each given a rank (the asking lanes below it); each lane's place from an inclusive scan over RANKS by hand, log steps of __shfl_sync whose source lane is found by clearing that many low bits of the mask; the run's length from __reduce_add_sync over the mask, in 16-byte units; the HIGHEST asking lane leads (CAS loop that gives up with no store, atomicMax, popc(mask) refusals); the start shuffled back from it; every pool's counters in a cudaMalloc of their own (four small allocations apart from the arena), each zeroed on its pool's stream",
     "why it is wrong: -",
     "source: own"]
E = [("""__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    (void)p;
    (void)bytes;
    return nullptr;
}""", """__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    const unsigned mask = __activemask();
    const int lane = threadIdx.x & (kWarp - 1);   // the kernels' blocks are whole warps
    // TODO 1: sizes in 16-byte units, rounded up.
    const unsigned long long units = (bytes + kAlign - 1) / kAlign;
    // My rank among the asking lanes: how many of them sit below me.
    const int rank = __popc(mask & ((1u << lane) - 1u));
    const int asking = __popc(mask);
    // Inclusive scan over ranks: in step d, rank r adds what rank r - d
    // holds. The lane of rank r - d is the lowest set bit of the mask
    // once its r - d lowest set bits are cleared.
    unsigned long long incl = units;
    for (int d = 1; d < asking; d <<= 1) {
        int src = lane;
        if (rank >= d) {
            unsigned m = mask;
            for (int k = 0; k < rank - d; k++) m &= m - 1u;
            src = __ffs(m) - 1;
        }
        const unsigned long long v = __shfl_sync(mask, incl, src);
        if (rank >= d) incl += v;
    }
    // TODO 2: the run's length, in bytes, and one lane (the highest
    // asking one) moves the offset for all, or refuses them all.
    const unsigned long long run = (unsigned long long)__reduce_add_sync(mask, (unsigned)units) * kAlign;
    const int leader = 31 - __clz(mask);
    unsigned long long start = ~0ull;
    if (lane == leader) {
        unsigned long long old = *(volatile unsigned long long*)&p.counters->offset;
        while (old + run <= p.capacity) {
            const unsigned long long seen = atomicCAS(&p.counters->offset, old, old + run);
            if (seen == old) {
                start = old;
                break;
            }
            old = seen;
        }
        if (start != ~0ull) atomicMax(&p.counters->high, start + run);
        else atomicAdd(&p.counters->failed, (unsigned long long)asking);
    }
    start = __shfl_sync(mask, start, leader);
    if (start == ~0ull) return nullptr;
    return p.base + start + (incl - units) * kAlign;
}"""),
("""    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        (void)n;
        (void)slice;
        (void)streams;
    }""", """    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        n_ = n;
        slice_ = slice;
        CHECK(cudaMalloc(&arena_, (size_t)n * slice));
        counters_.assign(n, nullptr);
        for (int i = 0; i < n; i++) {
            CHECK(cudaMalloc(&counters_[i], sizeof(PoolCounters)));
            CHECK(cudaMemsetAsync(counters_[i], 0, sizeof(PoolCounters), streams[i]));
        }
    }"""),
("""    DevicePool pool(int i) const {
        (void)i;
        return DevicePool{nullptr, 0, nullptr};
    }""", """    DevicePool pool(int i) const {
        return DevicePool{arena_ + (size_t)i * slice_, slice_, counters_[i]};
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
        CHECK(cudaMemsetAsync(&counters_[i]->offset, 0, sizeof(unsigned long long), s));
    }
    void used(int i, cudaStream_t s, PoolCounters* to) {
        CHECK(cudaMemcpyAsync(to, counters_[i], sizeof(PoolCounters), cudaMemcpyDeviceToHost, s));
    }"""),
("""    void destroy() {
    }""", """    void destroy() {
        for (int i = 0; i < n_; i++) CHECK(cudaFree(counters_[i]));
        counters_.clear();
        CHECK(cudaFree(arena_));
        arena_ = nullptr;
    }"""),
("""    // What init keeps for pool(), reset(), used() and destroy().
};""", """    // What init keeps for pool(), reset(), used() and destroy().
    int n_ = 0;
    unsigned long long slice_ = 0;
    char* arena_ = nullptr;
    std::vector<PoolCounters*> counters_;   // one allocation a pool
};"""),
]
fill("/work/main/exercises/day087/stream_pools.cu", "stream-pools/correct.cu", H, E)
