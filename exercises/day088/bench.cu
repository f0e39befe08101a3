// The harness of Day 88's capstone: the workload, run through the pool
// of stream_ordered_pool.h, or with --baseline through cudaMallocAsync and
// cudaFreeAsync. Four non-blocking streams run rounds of work; in each
// round one stream is busy and takes three blocks, the others one each.
// The busy stream moves every round, so blocks freed on one stream are
// needed on another while its kernels may still read them. With
// --handoff each stream but the last hands its blocks on to the next
// stream, which waits for it, reads them and frees them there: a block is
// then freed on another stream than the one that took it. The last
// stream frees its own, so the hand-offs' waits never come round to the
// first stream again: it is ordered after the second stream's reads of
// its blocks only by what the pool makes it wait for. With a third
// number, each fill first runs that many microseconds on the GPU: a block
// is then still in use when another stream asks for it, on any GPU, and a
// pool that waits for it on the host is seen waiting. With --keep the
// last round's blocks are never given back: the pool ends (after every
// stream was synchronized) while they are still handed out, as a pool
// may, and must still destroy everything it made. It prints:
//   16 rounds on 4 streams through the pool: 96 blocks used, errors: 0
//   allocations: N from the stream's own list, N fresh, N stolen
#include <algorithm>
#include <cstdint>
#include <cstring>
#include "stream_ordered_pool.h"

constexpr int kStreams = 4;
constexpr int kBusy = 3;              // blocks the busy stream takes in a round
constexpr int kWords = 1 << 20;       // 4 MiB blocks
constexpr size_t kBlock = kWords * sizeof(int);
constexpr int kGrid = 8;              // a few blocks a kernel: the streams' kernels can run side by side

// fill writes the round's stamp into the block (after spinning spin_ns
// nanoseconds, by the GPU's global timer, when that is not 0); check
// counts the words that differ from it. A block reused while another stream's check still
// reads it shows up as errors (when the race lands) and, always, in the
// statistics library's race count.
__global__ void fill(int* x, int n, int stamp, long long spin_ns) {
    if (spin_ns > 0) {
        if (threadIdx.x == 0) {
            unsigned long long start, now;
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
            do {
                asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
            } while (now - start < (unsigned long long)spin_ns);
        }
        __syncthreads();
    }
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) x[i] = stamp;
}

__global__ void check(const int* x, int n, int stamp, unsigned int* errors) {
    unsigned int bad = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) bad += x[i] != stamp;
    if (bad) atomicAdd(errors, bad);
}

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

// rounds runs the workload: through the pool when pool is set, else
// through cudaMallocAsync and cudaFreeAsync. With handed (one event per
// stream), each stream's blocks but the last stream's are read and freed
// on the next stream, after it waits for their checks (a ring of hand-offs
// would order every stream after every other one round later, and hide a
// pool that gives a block back to the stream that took it). With keep,
// the last round's blocks are never given back. It returns how many
// blocks it used, or -1 when the pool had none to give.
static int rounds(StreamOrderedPool* pool, cudaStream_t* s, int count, unsigned int* errors, cudaEvent_t* handed, long long spin_ns, bool keep) {
    int used = 0;
    for (int r = 0; r < count; r++) {
        for (int i = 0; i < kStreams; i++) {
            int take = i == r % kStreams ? kBusy : 1;
            int* got[kBusy];
            int stamps[kBusy];
            for (int k = 0; k < take; k++) {
                if (pool != nullptr) {
                    got[k] = static_cast<int*>(pool->allocate(s[i]));
                } else {
                    CHECK(cudaMallocAsync(&got[k], kBlock, s[i]));
                }
                if (got[k] == nullptr) {
                    printf("round %d: the pool had no block for stream %d\n", r, i);
                    return -1;
                }
                int stamp = (r * kStreams + i) * kBusy + k + 1;
                stamps[k] = stamp;
                fill<<<kGrid, 256, 0, s[i]>>>(got[k], kWords, stamp, spin_ns);
                check<<<kGrid, 256, 0, s[i]>>>(got[k], kWords, stamp, errors);
                used++;
            }
            cudaStream_t to = s[i];
            if (handed != nullptr && i + 1 < kStreams) {
                to = s[i + 1];
                CHECK(cudaEventRecord(handed[i], s[i]));
                CHECK(cudaStreamWaitEvent(to, handed[i], 0));
            }
            for (int k = 0; k < take; k++) {
                if (keep && r == count - 1) break;   // held to the pool's end
                if (to != s[i]) check<<<kGrid, 256, 0, to>>>(got[k], kWords, stamps[k], errors);
                if (pool != nullptr) {
                    pool->deallocate(got[k], to);
                } else {
                    CHECK(cudaFreeAsync(got[k], to));
                }
            }
        }
    }
    return used;
}

// Usage: bench [--baseline] [--handoff] [--keep] [ROUNDS [BLOCKS [SPIN_US]]] (16
// rounds, a pool of 8 blocks, no spin, by default). --baseline runs the
// same work through cudaMallocAsync and cudaFreeAsync instead of the pool;
// --handoff frees each block of every stream but the last on the next
// stream, after that stream read it; SPIN_US makes each fill run that many
// microseconds longer; --keep never gives the last round's blocks back.
int main(int argc, char** argv) {
    bool baseline = false, handoff = false, keep = false;
    while (argc > 1 && (strcmp(argv[1], "--baseline") == 0 || strcmp(argv[1], "--handoff") == 0 || strcmp(argv[1], "--keep") == 0)) {
        (strcmp(argv[1], "--baseline") == 0 ? baseline : strcmp(argv[1], "--handoff") == 0 ? handoff : keep) = true;
        argc--;
        argv++;
    }
    const int count = arg(argc, argv, 1, 16, 1000), blocks = arg(argc, argv, 2, 8, 64);
    const long long spin_ns = 1000ll * arg(argc, argv, 3, 0, 100000);
    cudaStream_t s[kStreams];
    for (auto& st : s) CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    // The streams take their parts in the order of their handles, so that a
    // pool that walks its streams by handle (a std::map) meets them in the
    // same order on every driver: the hand-offs then reach the same branches.
    std::sort(s, s + kStreams, [](cudaStream_t a, cudaStream_t b) { return (uintptr_t)a < (uintptr_t)b; });
    cudaEvent_t handed[kStreams];
    if (handoff)
        for (auto& e : handed) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    unsigned int* errors;
    CHECK(cudaMalloc(&errors, sizeof(unsigned int)));
    // Cleared in s[0]'s order and done before any kernel is queued: the
    // pool's constructor waits on the host for s[0], its setup stream (a
    // cudaMemset would run on the legacy stream, which none here waits for).
    CHECK(cudaMemsetAsync(errors, 0, sizeof(unsigned int), s[0]));
    int used = 0;
    {
        StreamOrderedPool pool(kBlock, blocks, s[0]);
        used = rounds(baseline ? nullptr : &pool, s, count, errors, handoff ? handed : nullptr, spin_ns, keep && !baseline);
        CHECK(cudaDeviceSynchronize());
        if (used < 0) return 1;
        unsigned int nerr = 0;
        CHECK(cudaMemcpy(&nerr, errors, sizeof nerr, cudaMemcpyDeviceToHost));
        printf("%d rounds on %d streams through %s: %d blocks used, errors: %u\n", count, kStreams,
               baseline ? "cudaMallocAsync" : "the pool", used, nerr);
        if (!baseline) printf("allocations: %d from the stream's own list, %d fresh, %d stolen\n", pool.own, pool.fresh, pool.stolen);
    }   // every stream was synchronized: the pool gives its chunk back
    CHECK(cudaFree(errors));
    if (handoff)
        for (auto& e : handed) CHECK(cudaEventDestroy(e));
    for (auto& st : s) CHECK(cudaStreamDestroy(st));
    return 0;
}
