from lib import build

S = "exercises/day087/stream_pools.cu"

ALLOC_OLD = """__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    (void)p;
    (void)bytes;
    return nullptr;
}"""
ALLOC_NEW = """__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    namespace cg = cooperative_groups;
    // The lanes that called together, ranked in lane order.
    const cg::coalesced_group g = cg::coalesced_threads();
    const unsigned long long units = (bytes + kAlign - 1) / kAlign;
    // Units asked by this lane and every asking lane below it; the last
    // rank's sum is the whole run.
    const unsigned long long upto = cg::inclusive_scan(g, units);
    const unsigned long long run = g.shfl(upto, (unsigned int)g.num_threads() - 1) * kAlign;
    unsigned long long start = 0;
    int granted = 0;
    if (g.thread_rank() == 0) {
        // The lowest asking lane moves the offset, only ever to a value
        // within the capacity.
        unsigned long long old = *(volatile unsigned long long*)&p.counters->offset;
        while (old + run <= p.capacity) {
            const unsigned long long seen = atomicCAS(&p.counters->offset, old, old + run);
            if (seen == old) {
                granted = 1;
                break;
            }
            old = seen;
        }
        if (granted) {
            start = old;
            atomicMax(&p.counters->high, old + run);
        } else {
            atomicAdd(&p.counters->failed, (unsigned long long)g.num_threads());
        }
    }
    granted = g.shfl(granted, 0);
    start = g.shfl(start, 0);
    if (!granted) return nullptr;
    return p.base + start + (upto - units) * kAlign;
}"""

CLASS_OLD = """    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        (void)n;
        (void)slice;
        (void)streams;
    }"""
CLASS_NEW = """    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        n_ = n;
        slice_ = slice;
        CHECK(cudaMalloc(&arena_, (size_t)n * slice));
        counters_.assign(n, nullptr);
        // Each pool's counters are an allocation of their own, made and
        // cleared in the order of the pool's stream.
        for (int i = 0; i < n; i++) {
            CHECK(cudaMallocAsync(&counters_[i], sizeof(PoolCounters), streams[i]));
            CHECK(cudaMemsetAsync(counters_[i], 0, sizeof(PoolCounters), streams[i]));
        }
    }"""
POOL_OLD = """    DevicePool pool(int i) const {
        (void)i;
        return DevicePool{nullptr, 0, nullptr};
    }"""
POOL_NEW = """    DevicePool pool(int i) const {
        return DevicePool{arena_ + (size_t)i * slice_, slice_, counters_[i]};
    }"""
RESET_OLD = """    void reset(int i, cudaStream_t s) {
        (void)i;
        (void)s;
    }
    void used(int i, cudaStream_t s, PoolCounters* to) {
        (void)i;
        (void)s;
        (void)to;
    }"""
RESET_NEW = """    void reset(int i, cudaStream_t s) {
        CHECK(cudaMemsetAsync(&counters_[i]->offset, 0, sizeof(unsigned long long), s));
    }
    void used(int i, cudaStream_t s, PoolCounters* to) {
        CHECK(cudaMemcpyAsync(to, counters_[i], sizeof(PoolCounters), cudaMemcpyDeviceToHost, s));
    }"""
DESTROY_OLD = """    void destroy() {
    }

private:
    // What init keeps for pool(), reset(), used() and destroy().
};"""
DESTROY_NEW = """    void destroy() {
        for (PoolCounters* c : counters_) CHECK(cudaFree(c));
        counters_.clear();
        CHECK(cudaFree(arena_));
        arena_ = nullptr;
    }

private:
    // What init keeps for pool(), reset(), used() and destroy().
    int n_ = 0;
    unsigned long long slice_ = 0;
    char* arena_ = nullptr;
    std::vector<PoolCounters*> counters_;
};"""
INC_OLD = "#include <cuda_runtime.h>\n"
INC_NEW = "#include <cuda_runtime.h>\n#include <cooperative_groups.h>\n#include <cooperative_groups/scan.h>\n"

CORRECT = [(INC_OLD, INC_NEW), (ALLOC_OLD, ALLOC_NEW), (CLASS_OLD, CLASS_NEW), (POOL_OLD, POOL_NEW),
           (RESET_OLD, RESET_NEW), (DESTROY_OLD, DESTROY_NEW)]

DESIGN = ("the asking lanes as a cooperative-groups coalesced group; each lane's place from the LIBRARY's cg::inclusive_scan "
          "of its size in 16-byte units, less its own units; the run's length shuffled from the group's LAST rank; the "
          "FIRST rank (lowest asking lane) moves the offset by a compare-and-swap loop that tests the fit before every try, "
          "raises the mark with atomicMax and counts a refusal as the group's size, and shuffles the start and the answer to "
          "the others. Host side: the arena one cudaMalloc of n slices, no counters in it; each pool's counters a SEPARATE "
          "cudaMallocAsync on its own stream, cleared there (n + 1 allocations, no host wait); reset clears the 8-byte offset "
          "field only; used one cudaMemcpyAsync of the three counters; destroy frees the n counter blocks and the arena "
          "with cudaFree (after main's device synchronisation)")

WRONGS = [
    ("refusal-counted-as-a-whole-warp",
     "other arguments only (GAPS 1): the gapped round's 'counted by the pools' is 32 per refused warp where 24 asked; "
     "the default lines right, since every refused warp of the overflow round has all 32 lanes asking",
     "a refused run adds kWarp (32) to the pool's failed count instead of the number of lanes that asked together",
     "the lanes that call pool_alloc together are not always the whole warp; a refusal must count the requests "
     "refused, the group's size",
     "related: alpaka-group/mallocMC#145 (a whole-warp constant used where only the active lanes take part)",
     [("atomicAdd(&p.counters->failed, (unsigned long long)g.num_threads());",
       "atomicAdd(&p.counters->failed, (unsigned long long)kWarp);")]),
    ("reset-queued-on-the-first-pools-stream",
     "a race: the record (resets of pools 1 to 3 not ordered after their streams' kernels and copies), the program's "
     "own output now and then (pool use not as expected, overlapping blocks)",
     "init keeps streams[0] as the pools' 'housekeeping' stream and reset clears pool i's offset there, ignoring s",
     "pool i's kernels and copies run on streams[i]; a memset on streams[0] is not ordered after the work already "
     "queued on streams[i] nor before what follows, so an offset can be cleared while a round is still allocating, "
     "or after the next round began",
     "own",
     [("        n_ = n;\n        slice_ = slice;\n", "        n_ = n;\n        slice_ = slice;\n        home_ = streams[0];\n"),
      ("CHECK(cudaMemsetAsync(&counters_[i]->offset, 0, sizeof(unsigned long long), s));",
       "(void)s;\n        CHECK(cudaMemsetAsync(&counters_[i]->offset, 0, sizeof(unsigned long long), home_));"),
      ("    char* arena_ = nullptr;\n", "    char* arena_ = nullptr;\n    cudaStream_t home_ = nullptr;\n")]),
    ("arena-allocated-on-the-first-stream",
     "the record only (a race): the kernels of pools 1 to 3 use the arena with nothing ordering them after its "
     "allocation, which is queued on streams[0] alone; every printed line right",
     "init allocates the arena with cudaMallocAsync on streams[0] (to keep init free of host waits), though every "
     "stream's kernels carve their blocks from it",
     "a stream-ordered allocation may be used only by work ordered after it; streams[1] to streams[3] are "
     "non-blocking and never wait for streams[0], so their first kernels are not ordered after the allocation",
     "own",
     [("        CHECK(cudaMalloc(&arena_, (size_t)n * slice));\n",
       "        CHECK(cudaMallocAsync((void**)&arena_, (size_t)n * slice, streams[0]));\n")]),
    ("counter-blocks-never-freed",
     "the record only: a leak of four small stream-ordered allocations at the end; every printed line right",
     "destroy gives back the arena but not the per-pool counter allocations that init made with cudaMallocAsync",
     "everything init took must be given back; the counters are allocations of their own in this design",
     "own",
     [("        for (PoolCounters* c : counters_) CHECK(cudaFree(c));\n", "")]),
]


def rows():
    return build("stream-pools", S, "cu", CORRECT, DESIGN, WRONGS)
