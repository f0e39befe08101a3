// kind: wrong (the program's own output: the first work round hangs (the run never ends))
// mistake: the leader's compare-and-swap loop does not take the value the failed atomicCAS returns (old = seen left out), so it retries with the offset it first read
// why it is wrong: once another warp of the same pool has moved the offset, a compare with the stale value fails every time and the offset never comes back to it (only the next round's reset would move it, and that waits for this kernel): the leader spins forever; 32 warps of a stream ask at once in every round, so the default run hangs in its first round
// source: related: jonhoo/haphazard#13 (no reload after a failed compare-and-swap: the loop retries a stale value forever)
// Day 87 exercise: per-stream device pools carved from one arena, each
// allocating a warp at a time.
// Design StreamPools and write pool_alloc (the six TODOs); lessons
// check says when it is done.
//
// Four non-blocking streams each run rounds of a kernel whose 1024 threads
// each take a block of 16 to 512 bytes from a bump pool on the device (some
// threads ask for nothing, so a warp's asking lanes have gaps) and write it,
// its first 16 bytes in one 16-byte store. Each stream has a pool of its own
// (a slice of one arena), whose counters live on the device: the offset,
// emptied at the start of every round, and the high-water mark and count of
// refused requests, kept from init to the end. Everything a pool does is in
// its stream's order: the host waits only to read the results. A last round
// asks each pool for twice what it holds: half the requests must fail, and
// no pool's offset may pass its capacity, not even for a moment (warps of
// the round watch it while the others ask), and no high-water mark may
// go down while they watch. It prints:
//   rounds: 8 on 4 streams, allocations: 23262, failed: 0, misaligned: 0, overlapping blocks: 0
//   warps given one run of blocks in lane order: 1024 of 1024
//   pool use read in stream order: 32 of 32 rounds as expected, high-water marks: 32 of 32
//   overflow: 4096 of 8192 requests failed, 4096 counted by the pools, offsets within capacity: yes, high-water marks at capacity: 4 of 4
//   high-water marks seen going down while the overflow round asked: 0
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>
#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(e_));                                            \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

constexpr int kStreams = 4;
constexpr int kThreads = 1024;
constexpr int kWarp = 32;
constexpr unsigned long long kAlign = 16;      // every block starts on a 16-byte boundary
constexpr unsigned long long kMaxBlock = 512;  // the largest request, already a multiple of kAlign
constexpr unsigned long long kSlice = kThreads * kMaxBlock;  // one pool: enough for any round
constexpr int kCounts = 6;  // what main counts per stream on the device (see counts in main)

// need is how many bytes thread t of stream i asks for in round r: 0 (it
// asks for nothing: one thread in 2 to 6, which ones changing by round and
// stream), or 16 to 512, most of them not a multiple of 16.
__host__ __device__ unsigned long long need(int t, int r, int i) {
    if ((t + r + i) % (2 + (r + 2 * i) % 5) == 0) return 0;
    return 16 + (unsigned long long)(t * 37 + r * 11 + i * 5) % 497;
}

// rounded is the bytes a block of the given size takes in a pool, as main
// checks it.
static unsigned long long rounded(unsigned long long bytes) {
    return (bytes + kAlign - 1) / kAlign * kAlign;
}

// What a pool counts, on the device. The fields are unsigned long long
// because atomicAdd, atomicCAS and atomicMax have no size_t overload.
struct PoolCounters {
    unsigned long long offset;  // bytes handed out since the last reset
    unsigned long long high;    // the most the offset has been since init
    unsigned long long failed;  // requests refused since init
};

// A bump pool on the device: capacity bytes from base, of which the first
// counters->offset are handed out.
struct DevicePool {
    char* base;
    unsigned long long capacity;
    PoolCounters* counters;
};

// pool_alloc hands out `bytes` of pool p, or nullptr when they do not fit.
// It is called by any of a warp's lanes at once (the others ask for
// nothing, or have left), in a kernel whose blocks are whole warps.
// TODO 1: every block starts on a kAlign boundary and takes its size
// rounded up to kAlign, no more.
// TODO 2: the lanes that ask together move the offset once, for all of
// them: their blocks are one run, in lane order (a lane's block starts
// where the blocks of the asking lanes below it end), and fit whole or
// not at all. The offset only ever moves to a value within the capacity,
// so it always says how much of the pool is in use: a full pool says no
// without moving it. The same one lane keeps the counters: the high-water
// mark, and every request refused.
// The asking lanes are the coalesced group of this call. Every one of
// them reads every asking lane's size, rank by rank (the same loop in all
// of them, so every shuffle has all of the group): the units of the ranks
// below its own are where its block starts in the run, all of them the
// run. The group's LAST rank moves the offset for the run.
constexpr unsigned long long kNo = ~0ull;   // the run's start when it does not fit
__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    cg::coalesced_group g = cg::coalesced_threads();
    const unsigned long long units = (bytes + kAlign - 1) / kAlign;
    const unsigned rank = g.thread_rank(), last = g.size() - 1;
    unsigned long long below = 0, run = 0;
    for (unsigned r = 0; r <= last; r++) {
        const unsigned long long u = g.shfl(units, r);
        if (r < rank) below += u;
        run += u;
    }
    unsigned long long start = kNo;
    if (rank == last) {
        const unsigned long long want = run * kAlign;
        unsigned long long old = *(volatile unsigned long long*)&p.counters->offset;
        // Tried only while the run still fits where the offset stands; a
        // full pool says no and the offset is never moved past capacity.
        while (old <= p.capacity && want <= p.capacity - old) {
            const unsigned long long seen = atomicCAS(&p.counters->offset, old, old + want);
            if (seen == old) {
                start = old;
                break;
            }
        }
        if (start != kNo) atomicMax(&p.counters->high, start + want);
        else atomicAdd(&p.counters->failed, (unsigned long long)g.size());
    }
    start = g.shfl(start, last);
    if (start == kNo) return nullptr;
    return p.base + start + below * kAlign;
}

// work: each thread that asks takes its block, notes where it is (nullptr
// when it asks for nothing), and fills it. A block that does not start on
// a 16-byte boundary is counted, and filled a byte at a time (a 16-byte
// store there would stop the kernel). Each of its blocks first spins about
// 50 us, as real work would take, so that the streams' kernels can run
// side by side. counts: failed, misaligned.
__global__ void work(DevicePool p, int round, int stream, char** where, unsigned int* counts) {
    long long t0 = clock64();
    while (clock64() - t0 < 100000) {}
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long n = need(t, round, stream);
    char* b = nullptr;
    __syncwarp();
    if (n > 0) {
        b = pool_alloc(p, n);
        if (b == nullptr) atomicAdd(&counts[0], 1u);
    }
    where[t] = b;
    if (b == nullptr) return;
    unsigned long long i = 0;
    if ((unsigned long long)b % kAlign == 0) {
        *(uint4*)b = make_uint4(t, round, stream, (unsigned)n);
        i = kAlign;
    } else {
        atomicAdd(&counts[1], 1u);
    }
    for (; i < n; i++) b[i] = (char)t;
}

// overflow: the first kAsking threads of each of its blocks ask for the
// largest block, write its last byte, count the requests that fail, and
// look at the pool's offset once they have their answer; the block's
// other warps watch the offset while they ask. An offset moved past the
// capacity and back again (an atomicAdd undone when the run does not fit)
// is within capacity when the kernel ends, but for a while says the pool
// holds more than it does, and refuses a warp that would fit: a look
// that sees it past the capacity is counted. The watchers start before
// their block's lanes ask (the barrier), and stop when every asking
// thread of the kernel has its answer, or after about half a second, so
// that blocks that cannot all run at once still end. The watchers look
// at the high-water mark too: warps that raise it race one another, and
// a mark raised by a read and a store (not one atomic) can be set back
// by a warp that read it before another raised it; a look that sees it
// lower than an earlier look is counted. counts: failed, asking threads
// answered, looks that saw the offset past the capacity, watching warps
// that saw the mark go down.
constexpr int kAsking = 256;
__global__ void overflow(DevicePool p, unsigned int* counts) {
    __syncthreads();
    if (threadIdx.x >= kAsking) {
        const unsigned int asking = gridDim.x * kAsking;
        const long long t0 = clock64();
        bool past = false, fell = false;
        unsigned long long high = 0;
        for (unsigned k = 0;; k++) {
            past = past || *(volatile unsigned long long*)&p.counters->offset > p.capacity;
            const unsigned long long h = *(volatile unsigned long long*)&p.counters->high;
            fell = fell || h < high;
            high = h > high ? h : high;
            // Whether to stop is asked one look in 16: the looks come closer.
            if (k % 16 == 15 && (*(volatile unsigned int*)&counts[1] >= asking || clock64() - t0 >= (1ll << 30))) break;
        }
        if (past && threadIdx.x % kWarp == 0) atomicAdd(&counts[2], 1u);
        if (fell && threadIdx.x % kWarp == 0) atomicAdd(&counts[3], 1u);
        return;
    }
    char* b = pool_alloc(p, kMaxBlock);
    if (b == nullptr) atomicAdd(&counts[0], 1u);
    else b[kMaxBlock - 1] = 1;
    if (*(volatile unsigned long long*)&p.counters->offset > p.capacity) atomicAdd(&counts[2], 1u);
    atomicAdd(&counts[1], 1u);
}

// StreamPools is n device pools of slice bytes each, one per stream, all
// carved from one arena.
class StreamPools {
public:
    // TODO 3: one arena for every pool, and the counters of each. Every
    // counter of pool i starts at 0, in the order of streams[i], the
    // pool's stream: the host does not wait for it.
    // One stream-ordered allocation on the first stream holds the n
    // slices and, after them, the n pools' counters packed one after the
    // other; the other streams are put after it by one event, and each
    // pool's counters are cleared on its own stream.
    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        n_ = n;
        slice_ = slice;
        CHECK(cudaMallocAsync(&arena_, (size_t)n * slice + (size_t)n * sizeof(PoolCounters), streams[0]));
        counters_ = reinterpret_cast<PoolCounters*>(arena_ + (size_t)n * slice);
        cudaEvent_t ready;
        CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
        CHECK(cudaEventRecord(ready, streams[0]));
        for (int i = 0; i < n; i++) {
            if (i > 0) CHECK(cudaStreamWaitEvent(streams[i], ready, 0));
            CHECK(cudaMemsetAsync(counters_ + i, 0, sizeof(PoolCounters), streams[i]));
        }
        CHECK(cudaEventDestroy(ready));   // the waits are queued: they keep what they need
    }
    // TODO 4: pool i, as a kernel of stream i takes it by value: its slice
    // of the arena, no other pool's, and its counters.
    DevicePool pool(int i) const {
        return DevicePool{arena_ + (size_t)i * slice_, slice_, counters_ + i};
    }
    // TODO 5: reset empties pool i once the work already queued on s is
    // done, and before what is queued after: its offset, not what the
    // pool has counted since init. used writes pool i's counters to *to
    // (pinned host memory, read by main after its wait), also in s's
    // order. Neither may wait on the host.
    void reset(int i, cudaStream_t s) {
        CHECK(cudaMemsetAsync(&counters_[i].offset, 0, sizeof(unsigned long long), s));
    }
    void used(int i, cudaStream_t s, PoolCounters* to) {
        CHECK(cudaMemcpyAsync(to, counters_ + i, sizeof(PoolCounters), cudaMemcpyDeviceToHost, s));
    }
    // TODO 6: give back what init took. main calls it last, after its
    // cudaDeviceSynchronize and after it destroyed the pools' streams.
    void destroy() {
        if (arena_ != nullptr) CHECK(cudaFree(arena_));   // every stream is done: nothing to order it after
        arena_ = nullptr;
        counters_ = nullptr;
        n_ = 0;
    }

private:
    // What init keeps for pool(), reset(), used() and destroy().
    int n_ = 0;
    unsigned long long slice_ = 0;
    char* arena_ = nullptr;
    PoolCounters* counters_ = nullptr;
};

// arg is the program's argument i as a number from 1 to hi, or def when
// it is not given; the course's checks run it with other inputs too.
static int arg(int argc, char** argv, int i, int def, int hi) {
    if (argc <= i) return def;
    int v = atoi(argv[i]);
    if (v < 1 || v > hi) {
        fprintf(stderr, "argument %d is %s: give a number from 1 to %d\n", i, argv[i], hi);
        exit(2);
    }
    return v;
}

// gapped: a round after the overflow round, when main's GAPS is 1: in
// each warp only the lanes whose number is not 3 mod 4 ask (24 of 32),
// each for the largest block, twice what the pool holds in all, so that
// warps whose asking lanes have gaps are refused. counts: failed.
__global__ void gapped(DevicePool p, unsigned int* failed) {
    if (threadIdx.x % kWarp % 4 == 3) return;
    char* b = pool_alloc(p, kMaxBlock);
    if (b == nullptr) atomicAdd(failed, 1u);
    else b[kMaxBlock - 1] = 1;
}

// Usage: stream_pools [ROUNDS] [GAPS] (8 rounds by default; GAPS, when 1,
// adds a round after the overflow round in which the asking lanes of
// every warp have gaps, and the pools are full before it ends).
int main(int argc, char** argv) {
    const int rounds = arg(argc, argv, 1, 8, 1000);
    const bool gaps = arg(argc, argv, 2, 0, 1) == 1;
    if (cudaSetDevice(0) != cudaSuccess) {
        printf("no CUDA device\n");
        return 1;
    }
    cudaStream_t streams[kStreams];
    // Non-blocking: nothing orders these streams with the legacy default
    // stream, so only what is queued on a pool's own stream is ordered
    // with its kernels.
    for (auto& s : streams) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    // where: every round's blocks, stream by stream; counts: each stream's
    // failed, misaligned, and in the overflow round failed, answered,
    // looks that saw the offset past the capacity and watchers that saw
    // the high-water mark go down, zeroed in its order.
    char** where;
    unsigned int* counts;
    CHECK(cudaMalloc(&where, (size_t)rounds * kStreams * kThreads * sizeof(char*)));
    CHECK(cudaMalloc(&counts, kStreams * kCounts * sizeof(unsigned int)));
    for (int i = 0; i < kStreams; i++)
        CHECK(cudaMemsetAsync(counts + kCounts * i, 0, kCounts * sizeof(unsigned int), streams[i]));
    // cudaMalloc does not clear memory: what init gets may hold what an
    // earlier allocation of the same size left, as here (cudaFree waits for
    // the memset: it synchronizes the device). where and counts, allocated
    // first, keep this memory's chunk in use, so that the driver hands the
    // freed bytes out again rather than giving the chunk back.
    PoolCounters* used_before;
    CHECK(cudaMalloc(&used_before, kStreams * sizeof(PoolCounters)));
    CHECK(cudaMemsetAsync(used_before, 0xff, kStreams * sizeof(PoolCounters), streams[0]));
    CHECK(cudaFree(used_before));
    StreamPools pools;
    pools.init(kStreams, kSlice, streams);
    // Pinned, so that used() can copy to it in stream order; every byte
    // 0xff until a copy writes it.
    PoolCounters* use;
    const int slots = (rounds + 2) * kStreams;
    CHECK(cudaMallocHost(&use, slots * sizeof(PoolCounters)));
    memset(use, 0xff, slots * sizeof(PoolCounters));

    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < kStreams; i++) {
            pools.reset(i, streams[i]);
            work<<<kThreads / 256, 256, 0, streams[i]>>>(pools.pool(i), r, i, where + ((size_t)r * kStreams + i) * kThreads,
                                                        counts + kCounts * i);
            pools.used(i, streams[i], use + r * kStreams + i);
        }
    }
    CHECK(cudaDeviceSynchronize());

    std::vector<char*> at((size_t)rounds * kStreams * kThreads);
    unsigned int count[kStreams * kCounts];
    CHECK(cudaMemcpy(at.data(), where, at.size() * sizeof(char*), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(count, counts, sizeof count, cudaMemcpyDeviceToHost));
    unsigned int failed = 0, misaligned = 0;
    for (int i = 0; i < kStreams; i++) failed += count[kCounts * i], misaligned += count[kCounts * i + 1];
    // In each round, no two blocks of any streams may overlap; and the
    // asking lanes of each warp hold one run of blocks, in lane order.
    long allocations = 0;
    int overlaps = 0, runs = 0;
    for (int r = 0; r < rounds; r++) {
        std::vector<std::pair<char*, unsigned long long>> blocks;
        for (int i = 0; i < kStreams; i++) {
            char* const* w = at.data() + ((size_t)r * kStreams + i) * kThreads;
            for (int t = 0; t < kThreads; t++) {
                allocations += need(t, r, i) > 0;
                if (w[t] != nullptr) blocks.push_back({w[t], need(t, r, i)});
            }
            for (int first = 0; first < kThreads; first += kWarp) {
                bool run = true;
                int prev = -1;
                for (int t = first; t < first + kWarp; t++) {
                    if (need(t, r, i) == 0) continue;
                    if (w[t] == nullptr || (prev >= 0 && w[t] != w[prev] + rounded(need(prev, r, i)))) run = false;
                    prev = t;
                }
                runs += run;
            }
        }
        std::sort(blocks.begin(), blocks.end());
        for (size_t k = 1; k < blocks.size(); k++) {
            if (blocks[k].first < blocks[k - 1].first + blocks[k - 1].second) overlaps++;
        }
    }
    printf("rounds: %d on %d streams, allocations: %ld, failed: %u, misaligned: %u, overlapping blocks: %d\n", rounds,
           kStreams, allocations, failed, misaligned, overlaps);
    printf("warps given one run of blocks in lane order: %d of %d\n", runs, rounds * kStreams * kThreads / kWarp);

    // What each pool held at the end of each round (its blocks' sizes, each
    // rounded up to 16), the most it had held by then, and no failure.
    int expected = 0, highs = 0;
    for (int i = 0; i < kStreams; i++) {
        unsigned long long high = 0;
        for (int r = 0; r < rounds; r++) {
            unsigned long long want = 0;
            for (int t = 0; t < kThreads; t++) want += rounded(need(t, r, i));
            high = std::max(high, want);
            const PoolCounters& u = use[r * kStreams + i];
            expected += u.offset == want;
            highs += u.high == high && u.failed == 0;
        }
    }
    printf("pool use read in stream order: %d of %d rounds as expected, high-water marks: %d of %d\n", expected,
           rounds * kStreams, highs, rounds * kStreams);

    // The overflow round: twice what each pool holds, two warps of each
    // block watching.
    for (int i = 0; i < kStreams; i++) {
        pools.reset(i, streams[i]);
        overflow<<<2 * kThreads / kAsking, kAsking + 2 * kWarp, 0, streams[i]>>>(pools.pool(i), counts + kCounts * i + 2);
        pools.used(i, streams[i], use + rounds * kStreams + i);
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(count, counts, sizeof count, cudaMemcpyDeviceToHost));
    bool within = true;
    unsigned int refused = 0, counted = 0, fell = 0;
    int full = 0;
    for (int i = 0; i < kStreams; i++) {
        const PoolCounters& u = use[rounds * kStreams + i];
        within = within && u.offset <= kSlice && count[kCounts * i + 4] == 0;
        refused += count[kCounts * i + 2];
        counted += (unsigned)u.failed;
        full += u.high == kSlice;
        fell += count[kCounts * i + 5];
    }
    printf("overflow: %u of %d requests failed, %u counted by the pools, offsets within capacity: %s, high-water marks at "
           "capacity: %d of %d\n",
           refused, 2 * kStreams * kThreads, counted, within ? "yes" : "no", full, kStreams);
    printf("high-water marks seen going down while the overflow round asked: %u\n", fell);
    // The round with gaps: the pools count every request they refuse, as
    // many as the refused warps' asking lanes.
    bool gaps_counted = true;
    if (gaps) {
        printf("gapped round: 24 of 32 lanes of each warp ask\n");
        unsigned int* gfailed;
        CHECK(cudaMalloc(&gfailed, kStreams * sizeof(unsigned int)));
        for (int i = 0; i < kStreams; i++) {
            CHECK(cudaMemsetAsync(gfailed + i, 0, sizeof(unsigned int), streams[i]));
            pools.reset(i, streams[i]);
            gapped<<<2 * kThreads / 256, 256, 0, streams[i]>>>(pools.pool(i), gfailed + i);
            pools.used(i, streams[i], use + (rounds + 1) * kStreams + i);
        }
        CHECK(cudaDeviceSynchronize());
        unsigned int gf[kStreams];
        CHECK(cudaMemcpy(gf, gfailed, sizeof gf, cudaMemcpyDeviceToHost));
        CHECK(cudaFree(gfailed));
        unsigned int grefused = 0, gcounted = 0;
        for (int i = 0; i < kStreams; i++) {
            grefused += gf[i];
            gcounted += (unsigned)(use[(rounds + 1) * kStreams + i].failed - use[rounds * kStreams + i].failed);
        }
        printf("gapped round: %u of %d requests failed, %u counted by the pools\n", grefused,
               kStreams * 2 * kThreads / 4 * 3, gcounted);
        gaps_counted = grefused > 0 && gcounted == grefused;
    }
    for (auto& s : streams) CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeHost(use));
    CHECK(cudaFree(counts));
    CHECK(cudaFree(where));
    pools.destroy();
    bool ok = failed == 0 && misaligned == 0 && overlaps == 0 && runs == rounds * kStreams * kThreads / kWarp &&
              expected == rounds * kStreams && highs == rounds * kStreams && within && refused == kStreams * kThreads &&
              counted == refused && full == kStreams && fell == 0 && gaps_counted;
    return ok ? 0 : 1;
}
