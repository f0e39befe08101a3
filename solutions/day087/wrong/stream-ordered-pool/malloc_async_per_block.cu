// expect: the pool takes its memory from cudaMallocAsync once
// When its own list is empty, allocate() asks cudaMallocAsync instead of stealing.
// Day 87 capstone: a stream-ordered pool of your own, with a free list per
// stream and blocks stolen between streams through events, raced against
// the driver's own stream-ordered allocator (cudaMallocAsync).
//
// Four non-blocking streams run rounds of work; in each round one stream
// is busy and takes three blocks, the others one each. The busy stream
// moves every round, so blocks freed on one stream are needed on another
// while its kernels may still read them. The program prints:
//   16 rounds on 4 streams: 96 blocks used, errors: 0
//   allocations: N from the stream's own list, N fresh, N stolen
//   pool: X ms, cudaMallocAsync: Y ms, pool/cudaMallocAsync: Zx
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
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
constexpr int kBusy = 3;              // blocks the busy stream takes in a round
constexpr int kWords = 1 << 20;       // 4 MiB blocks
constexpr size_t kBlock = kWords * sizeof(int);

// A pool of fixed-size blocks cut from one stream-ordered allocation.
// allocate(s) hands out a block that work queued on s after the call may
// use; deallocate(p, s) gives it back once the work queued on s before the
// call is done. Neither ever makes the host wait for the GPU.
class StreamOrderedPool {
public:
    StreamOrderedPool(int blocks, cudaStream_t setup) : blocks_(blocks), setup_(setup) {
        CHECK(cudaMallocAsync(&chunk_, blocks * kBlock, setup));
        CHECK(cudaStreamSynchronize(setup));   // the chunk is ready for every stream
        for (int i = blocks - 1; i >= 0; i--) fresh_.push_back(chunk_ + i * kBlock);
    }

    // The counts main prints: blocks served from the allocating stream's
    // own free list, never used before, and taken from another stream's.
    int own = 0, fresh = 0, stolen = 0;

    // allocate returns a block for work on stream s, or nullptr when every
    // block is handed out. A block another stream freed may still be in
    // use by that stream's kernels: s must not touch it before they end,
    // and the host must not wait for them.
    void* allocate(cudaStream_t s) {
        // TODO 1: serve s from its own free list first (no wait needed:
        // s's order already follows its own frees), then from the fresh
        // blocks, then steal another stream's freed block, making s wait
        // on the GPU for the event recorded when it was freed.
        std::vector<Freed>& mine = free_[s];
        if (!mine.empty()) {
            Freed f = mine.back();
            mine.pop_back();
            spare_.push_back(f.event);
            own++;
            return f.p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        void* p = nullptr;
        CHECK(cudaMallocAsync(&p, kBlock, s));
        return p;
        return nullptr;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        // TODO 2: put p on s's free list with what another stream must
        // wait for before reusing it.
        cudaEvent_t e;
        if (spare_.empty()) {
            CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        } else {
            e = spare_.back();
            spare_.pop_back();
        }
        CHECK(cudaEventRecord(e, s));
        free_[s].push_back(Freed{static_cast<char*>(p), e});
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        // TODO 3: destroy what the pool made, then give the chunk back.
        for (auto& [stream, list] : free_)
            for (Freed& f : list) CHECK(cudaEventDestroy(f.event));
        for (cudaEvent_t e : spare_) CHECK(cudaEventDestroy(e));
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    int blocks_;
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    // A freed block and the event recorded on the stream that freed it.
    struct Freed {
        char* p;
        cudaEvent_t event;
    };
    std::map<cudaStream_t, std::vector<Freed>> free_;   // per stream
    std::vector<cudaEvent_t> spare_;                     // events free to record again
};

// fill writes the round's stamp into the block; check counts the words
// that differ from it. A block reused while another stream's check still
// reads it shows up as errors (when the race lands) and, always, in the
// statistics library's race count.
__global__ void fill(int* x, int n, int stamp) {
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
// through cudaMallocAsync and cudaFreeAsync. It returns how many blocks
// it used, or -1 when the pool had none to give.
static int rounds(StreamOrderedPool* pool, cudaStream_t* s, int count, unsigned int* errors) {
    int used = 0;
    for (int r = 0; r < count; r++) {
        for (int i = 0; i < kStreams; i++) {
            int take = i == r % kStreams ? kBusy : 1;
            int* got[kBusy];
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
                fill<<<264, 256, 0, s[i]>>>(got[k], kWords, stamp);
                check<<<264, 256, 0, s[i]>>>(got[k], kWords, stamp, errors);
                used++;
            }
            for (int k = 0; k < take; k++) {
                if (pool != nullptr) {
                    pool->deallocate(got[k], s[i]);
                } else {
                    CHECK(cudaFreeAsync(got[k], s[i]));
                }
            }
        }
    }
    return used;
}

// Usage: stream_ordered_pool [ROUNDS [BLOCKS]] (16 rounds, a pool of 8
// blocks, by default).
int main(int argc, char** argv) {
    const int count = arg(argc, argv, 1, 16, 1000), blocks = arg(argc, argv, 2, 8, 64);
    cudaStream_t s[kStreams];
    for (auto& st : s) CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    unsigned int* errors;
    CHECK(cudaMalloc(&errors, sizeof(unsigned int)));
    CHECK(cudaMemset(errors, 0, sizeof(unsigned int)));

    double ms[2] = {0, 0};
    int used = 0;
    {
        StreamOrderedPool pool(blocks, s[0]);
        // A warm-up round each, so that neither clock holds the kernels'
        // loading or the driver pool's first growth.
        if (rounds(&pool, s, 1, errors) < 0 || rounds(nullptr, s, 1, errors) < 0) return 1;
        CHECK(cudaDeviceSynchronize());
        for (int mode = 0; mode < 2; mode++) {
            auto t0 = std::chrono::steady_clock::now();
            int n = rounds(mode == 0 ? &pool : nullptr, s, count, errors);
            CHECK(cudaDeviceSynchronize());
            ms[mode] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (n < 0) return 1;
            used = n;
        }
        printf("%d rounds on %d streams: %d blocks used, ", count, kStreams, used);
        unsigned int nerr = 0;
        CHECK(cudaMemcpy(&nerr, errors, sizeof nerr, cudaMemcpyDeviceToHost));
        printf("errors: %u\n", nerr);
        printf("allocations: %d from the stream's own list, %d fresh, %d stolen\n", pool.own, pool.fresh, pool.stolen);
    }   // every stream was synchronized: the pool gives its chunk back
    printf("pool: %.2f ms, cudaMallocAsync: %.2f ms, pool/cudaMallocAsync: %.2fx\n", ms[0], ms[1], ms[0] / ms[1]);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(errors));
    for (auto& st : s) CHECK(cudaStreamDestroy(st));
    return 0;
}
