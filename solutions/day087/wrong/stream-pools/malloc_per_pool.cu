// expect: one arena for every pool
// Each pool's slice is a cudaMalloc of its own: it works, but the device's allocator is called once per pool instead of once.
// Day 87 exercise: per-stream device pools carved from one arena.
//
// Four non-blocking streams each run rounds of a kernel whose 1024 threads
// each take a block of 16 to 512 bytes from a bump pool on the device and
// write it, its first 16 bytes in one 16-byte store. Each stream has a pool
// of its own (a slice of one arena), emptied at the start of every round
// and read back at its end, both in that stream's order: the host waits
// only to read the results. A last round asks each pool for twice what it
// holds: half the requests must fail, and no pool's offset may pass its
// capacity. It prints:
//   rounds: 8 on 4 streams, allocations: 32768, failed: 0, misaligned: 0, overlapping blocks: 0
//   pool use read in stream order: 32 of 32 rounds as expected
//   overflow: 4096 of 8192 requests failed, offsets within capacity: yes
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>
#include <cuda_runtime.h>

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
constexpr unsigned long long kAlign = 16;      // every block starts on a 16-byte boundary
constexpr unsigned long long kMaxBlock = 512;  // the largest request, already a multiple of kAlign
constexpr unsigned long long kSlice = kThreads * kMaxBlock;  // one pool: enough for any round

// need is how many bytes thread t of stream i asks for in round r: 16 to
// 512, most of them not a multiple of 16.
__host__ __device__ unsigned long long need(int t, int r, int i) {
    return 16 + (unsigned long long)(t * 37 + r * 11 + i * 5) % 497;
}

// A bump pool on the device: capacity bytes from base, of which the
// first *offset are handed out. The offset is unsigned long long because
// atomicAdd and atomicCAS have no size_t overload.
struct DevicePool {
    char* base;
    unsigned long long capacity;
    unsigned long long* offset;
};

// pool_alloc hands out `bytes` of pool p, or nullptr when they do not fit.
// TODO 1: every block starts on a kAlign boundary and takes its size
// rounded up to kAlign, no more. The offset only ever moves to a value
// within the capacity, so it always says how much of the pool is in use,
// however many threads ask at once: a full pool says no without moving it.
__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    const unsigned long long size = (bytes + kAlign - 1) / kAlign * kAlign;
    unsigned long long at = *(volatile unsigned long long*)p.offset;
    while (at + size <= p.capacity) {
        // atomicCAS moves the offset only if no other thread has since.
        unsigned long long seen = atomicCAS(p.offset, at, at + size);
        if (seen == at) return p.base + at;
        at = seen;
    }
    return nullptr;
}

// work: each thread takes its block, notes where it is, and fills it.
// A block that does not start on a 16-byte boundary is counted, and
// filled a byte at a time (a 16-byte store there would stop the kernel).
// Each of its blocks first spins about 50 us, as real work would take, so
// that the streams' kernels can run side by side.
__global__ void work(DevicePool p, int round, int stream, char** where, unsigned int* failed, unsigned int* misaligned) {
    long long t0 = clock64();
    while (clock64() - t0 < 100000) {}
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long n = need(t, round, stream);
    char* b = pool_alloc(p, n);
    where[t] = b;
    if (b == nullptr) {
        atomicAdd(failed, 1u);
        return;
    }
    unsigned long long i = 0;
    if ((unsigned long long)b % kAlign == 0) {
        *(uint4*)b = make_uint4(t, round, stream, (unsigned)n);
        i = kAlign;
    } else {
        atomicAdd(misaligned, 1u);
    }
    for (; i < n; i++) b[i] = (char)t;
}

// overflow asks for the largest block per thread, writes its last byte,
// and counts the requests that fail.
__global__ void overflow(DevicePool p, unsigned int* failed) {
    char* b = pool_alloc(p, kMaxBlock);
    if (b == nullptr) atomicAdd(failed, 1u);
    else b[kMaxBlock - 1] = 1;
}

// StreamPools is n device pools of slice bytes each, one per stream, all
// carved from one arena.
class StreamPools {
public:
    // TODO 2: one arena for every pool, and an offset for each. A pool's
    // offset need not start at 0: reset() empties it before every round.
    void init(int n, unsigned long long slice) {
        slice_ = slice;
        for (int i = 0; i < n; i++) {
            char* p = nullptr;
            CHECK(cudaMalloc(&p, slice));
            slices_.push_back(p);
        }
        CHECK(cudaMalloc(&offsets_, n * sizeof(unsigned long long)));
    }
    // TODO 3: pool i, as a kernel of stream i takes it by value: its slice
    // of the arena, no other pool's, and its offset.
    DevicePool pool(int i) const {
        return DevicePool{slices_[i], slice_, offsets_ + i};
    }
    // TODO 4: reset empties pool i once the work already queued on s is
    // done, and before what is queued after; used writes pool i's offset
    // to *to (pinned host memory, read by main after its wait), also in
    // s's order. Neither may wait on the host.
    void reset(int i, cudaStream_t s) {
        CHECK(cudaMemsetAsync(offsets_ + i, 0, sizeof(unsigned long long), s));
    }
    void used(int i, cudaStream_t s, unsigned long long* to) {
        CHECK(cudaMemcpyAsync(to, offsets_ + i, sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
    }
    // TODO 5: give back what init took.
    void destroy() {
        CHECK(cudaFree(offsets_));
        for (char* p : slices_) CHECK(cudaFree(p));
    }

private:
    char* arena_ = nullptr;                // n * slice_ bytes: pool i is bytes [i * slice_, (i + 1) * slice_)
    unsigned long long* offsets_ = nullptr; // n offsets, one per pool
    unsigned long long slice_ = 0;
    std::vector<char*> slices_;
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

// Usage: stream_pools [ROUNDS] (8 by default).
int main(int argc, char** argv) {
    const int rounds = arg(argc, argv, 1, 8, 1000);
    if (cudaSetDevice(0) != cudaSuccess) {
        printf("no CUDA device\n");
        return 1;
    }
    StreamPools pools;
    pools.init(kStreams, kSlice);
    char** where;
    unsigned int* counts;  // failed in the rounds, misaligned, failed in the overflow
    CHECK(cudaMalloc(&where, kStreams * kThreads * sizeof(char*)));
    CHECK(cudaMalloc(&counts, 3 * sizeof(unsigned int)));
    CHECK(cudaMemset(counts, 0, 3 * sizeof(unsigned int)));
    // Pinned, so that used() can copy to it in stream order; every byte
    // 0xff until a copy writes it.
    unsigned long long* use;
    const int slots = (rounds + 1) * kStreams;
    CHECK(cudaMallocHost(&use, slots * sizeof(unsigned long long)));
    memset(use, 0xff, slots * sizeof(unsigned long long));
    cudaStream_t streams[kStreams];
    // Non-blocking: nothing orders these streams with the legacy default
    // stream, so only what is queued on a pool's own stream is ordered
    // with its kernels.
    for (auto& s : streams) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < kStreams; i++) {
            pools.reset(i, streams[i]);
            work<<<kThreads / 256, 256, 0, streams[i]>>>(pools.pool(i), r, i, where + i * kThreads, counts, counts + 1);
            pools.used(i, streams[i], use + r * kStreams + i);
        }
    }
    CHECK(cudaDeviceSynchronize());

    // The blocks of every stream's last round, with their sizes: no two
    // may overlap.
    std::vector<char*> at(kStreams * kThreads);
    unsigned int count[3] = {0, 0, 0};
    CHECK(cudaMemcpy(at.data(), where, at.size() * sizeof(char*), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(count, counts, sizeof count, cudaMemcpyDeviceToHost));
    std::vector<std::pair<char*, unsigned long long>> blocks;
    for (int i = 0; i < kStreams; i++)
        for (int t = 0; t < kThreads; t++)
            if (at[i * kThreads + t] != nullptr) blocks.push_back({at[i * kThreads + t], need(t, rounds - 1, i)});
    std::sort(blocks.begin(), blocks.end());
    int overlaps = 0;
    for (size_t k = 1; k < blocks.size(); k++) {
        if (blocks[k].first < blocks[k - 1].first + blocks[k - 1].second) overlaps++;
    }
    printf("rounds: %d on %d streams, allocations: %d, failed: %u, misaligned: %u, overlapping blocks: %d\n",
           rounds, kStreams, rounds * kStreams * kThreads, count[0], count[1], overlaps);

    // What each pool held at the end of each round: its blocks' sizes,
    // each rounded up to 16.
    int expected = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < kStreams; i++) {
            unsigned long long want = 0;
            for (int t = 0; t < kThreads; t++) want += (need(t, r, i) + kAlign - 1) / kAlign * kAlign;
            expected += use[r * kStreams + i] == want;
        }
    }
    printf("pool use read in stream order: %d of %d rounds as expected\n", expected, rounds * kStreams);

    // The overflow round: twice what each pool holds.
    for (int i = 0; i < kStreams; i++) {
        pools.reset(i, streams[i]);
        overflow<<<2 * kThreads / 256, 256, 0, streams[i]>>>(pools.pool(i), counts + 2);
        pools.used(i, streams[i], use + rounds * kStreams + i);
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(count, counts, sizeof count, cudaMemcpyDeviceToHost));
    bool within = true;
    for (int i = 0; i < kStreams; i++) within = within && use[rounds * kStreams + i] <= kSlice;
    printf("overflow: %u of %d requests failed, offsets within capacity: %s\n", count[2], 2 * kStreams * kThreads,
           within ? "yes" : "no");
    for (auto& s : streams) CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeHost(use));
    CHECK(cudaFree(counts));
    CHECK(cudaFree(where));
    pools.destroy();
    bool ok = count[0] == 0 && count[1] == 0 && overlaps == 0 && expected == rounds * kStreams && within &&
              count[2] == (unsigned)(kStreams * kThreads);
    return ok ? 0 : 1;
}
