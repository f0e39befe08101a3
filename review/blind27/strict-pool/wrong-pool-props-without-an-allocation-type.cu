// kind: wrong
// mistake: the constructor writes the props' location and handle types but not allocType, 'value-initialised props are an ordinary device pool'
// why it is wrong: default output: allocType 0 is cudaMemAllocationTypeInvalid, which cudaMemPoolCreate refuses: error() reports 'invalid argument' at main's first check and the program stops before its first round
// source: related: NVIDIA/cccl#11462 (the pool props' fields that must be set for a pool to be created, the allocation type first)
// A pool whose blocks pass from one stream to another only where the
// program says so: opportunistic reuse and the driver's own inserted
// dependencies are turned off, so the one way a block freed on stream A
// reaches stream B is an event B waits for.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void fill(int* x, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}

// Adds x into *out; each thread a strided share.
__global__ void sum(const int* x, int n, unsigned long long* out) {
    unsigned long long acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i];
    atomicAdd(out, acc);
}

// pools_supported says whether the device can allocate in stream order
// at all (cudaMallocAsync and memory pools).
static bool pools_supported(int device) {
    // TODO 1: ask the device whether it supports memory pools.
    int yes = 0;
    if (cudaDeviceGetAttribute(&yes, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return yes != 0;
}

// A StrictPool is a pool of the device's memory of its own on which a
// block freed on one stream reaches another stream only where the program
// hands it over: opportunistic reuse and the dependencies the driver would
// insert by itself are off; following the program's events stays on.
// main makes one, checks error() after each step, and uses nothing else
// of the pool's.
class StrictPool {
public:
    explicit StrictPool(int device);
    ~StrictPool();
    // error is the first CUDA error any of the pool's calls met, or
    // cudaSuccess.
    cudaError_t error() const;
    // get allocates bytes from the pool in s's order; nullptr (and error()
    // says why) when it cannot.
    void* get(size_t bytes, cudaStream_t s);
    // put gives p back to the pool in s's order: after the work queued on
    // s so far, which may still be using it.
    void put(void* p, cudaStream_t s);
    // hand orders to after everything queued on from so far, its puts
    // included, so that to's next get may take a block from put back;
    // the host does not wait.
    void hand(cudaStream_t from, cudaStream_t to);
    // policy is the pool's own value of reuse policy attr, asked of the
    // pool (-1 when it cannot say).
    int policy(cudaMemPoolAttr attr);
    // reserved_high is the most memory the pool has reserved from the
    // device at once.
    uint64_t reserved_high();

private:
    // TODO 2: what the pool keeps: the pool itself, whatever hand needs,
    // and the first error.
    // hand makes a fresh event each time and keeps it only until the next
    // hand (a wait already queued does not need its event to live on), so
    // the pool holds one event at most: the last hand's.
    cudaMemPool_t pool_ = nullptr;
    cudaEvent_t last_ = nullptr;
    cudaError_t error_ = cudaSuccess;
    // keep notes the first failure and says whether the call succeeded.
    bool keep(cudaError_t err) {
        if (err != cudaSuccess && error_ == cudaSuccess) error_ = err;
        return err == cudaSuccess;
    }
};

// TODO 3: create the pool on device, with the two reuse policies off that
// let a block cross streams without an event of the program's, and what
// hand needs. A failure is kept for error(), not printed.
StrictPool::StrictPool(int device) {
    cudaMemPoolProps props = {};
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    if (!keep(cudaMemPoolCreate(&pool_, &props))) {
        pool_ = nullptr;
        return;
    }
    const cudaMemPoolAttr off[] = {cudaMemPoolReuseAllowOpportunistic, cudaMemPoolReuseAllowInternalDependencies};
    for (cudaMemPoolAttr a : off) {
        int zero = 0;
        keep(cudaMemPoolSetAttribute(pool_, a, &zero));
    }
}

// TODO 4: give back what the constructor made.
StrictPool::~StrictPool() {
    if (last_ != nullptr) cudaEventDestroy(last_);
    last_ = nullptr;
    if (pool_ != nullptr) cudaMemPoolDestroy(pool_);
    pool_ = nullptr;
}

// TODO 5: the first error.
cudaError_t StrictPool::error() const {
    return error_;
}

// TODO 6: a block from this pool, in s's order.
void* StrictPool::get(size_t bytes, cudaStream_t s) {
    void* p = nullptr;
    if (pool_ == nullptr || !keep(cudaMallocFromPoolAsync(&p, bytes, pool_, s))) return nullptr;
    return p;
}

// TODO 7: the block back to the pool, in s's order.
void StrictPool::put(void* p, cudaStream_t s) {
    if (p != nullptr) keep(cudaFreeAsync(p, s));
}

// TODO 8: order to after what from has queued so far; the host goes on.
// One event made for each hand, kept only until the next hand: nothing
// is shared between hands (two hands never record over each other's
// mark), and destroying it one hand later rather than at once keeps the
// one event a wait was queued on alive until the host has moved on; the
// destructor takes the last one.
void StrictPool::hand(cudaStream_t from, cudaStream_t to) {
    cudaEvent_t e = nullptr;
    if (!keep(cudaEventCreateWithFlags(&e, cudaEventDisableTiming))) return;
    keep(cudaEventRecord(e, from));
    keep(cudaStreamWaitEvent(to, e, 0));
    if (last_ != nullptr) keep(cudaEventDestroy(last_));
    last_ = e;
}

// TODO 9: the pool's value of attr (an int attribute), asked of the pool.
int StrictPool::policy(cudaMemPoolAttr attr) {
    int v = -1;
    if (pool_ == nullptr || cudaMemPoolGetAttribute(pool_, attr, &v) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return v;
}

// TODO 10: the most the pool has reserved at once (a 64-bit attribute, as
// Day 69's: read it into a uint64_t; cuda.h's name for it is cuuint64_t).
uint64_t StrictPool::reserved_high() {
    uint64_t v = 0;
    if (pool_ == nullptr || !keep(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &v))) return 0;
    return v;
}

// busy is work A queues after a put and before its hand, with the copy of
// a word B's round adds to its sum: it spins about a millisecond, as real
// work would take.
__global__ void busy() {
    const long long t0 = clock64();
    while (clock64() - t0 < 2000000) {}
}

// add adds *x to *out.
__global__ void add(const unsigned long long* x, unsigned long long* out) {
    *out += *x;
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

// Usage: strict_pool [ROUNDS] [MIB] [LATE] (6 rounds of 32 MiB by
// default; LATE, when 1, has A queue a kernel and a copy after each put
// and before its hand, the copy's word one B adds to the round's sum: a
// hand orders to after all that from queued so far, not only its puts).
int main(int argc, char** argv) {
    const int device = 0, rounds = arg(argc, argv, 1, 6, 64), mib = arg(argc, argv, 2, 32, 256);
    const int late = arg(argc, argv, 3, 0, 1);
    const int n = mib * (1 << 20) / (int)sizeof(int);
    const size_t bytes = (size_t)n * sizeof(int);
    CHECK(cudaSetDevice(device));
    if (!pools_supported(device)) {
        printf("device %d does not support memory pools: nothing to do\n", device);
        return 0;
    }
    cudaStream_t a, b;
    CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    unsigned long long* sums = nullptr;
    CHECK(cudaMalloc(&sums, rounds * sizeof(unsigned long long)));
    CHECK(cudaMemsetAsync(sums, 0, rounds * sizeof(unsigned long long), b));
    // LATE's words, one a round: A copies round r's (r + 1) from staged
    // (pinned) to words after its put, behind busy.
    unsigned long long *words = nullptr, *staged = nullptr;
    if (late) {
        CHECK(cudaMalloc(&words, rounds * sizeof(unsigned long long)));
        CHECK(cudaMallocHost(&staged, rounds * sizeof(unsigned long long)));
        for (int r = 0; r < rounds; r++) staged[r] = r + 1;
        printf("A queues more work after each put, before its hand\n");
    }

    int handed = 0, right = 0;
    uint64_t reserved = 0;
    {
        StrictPool pool(device);
        CHECK(pool.error());
        const int opportunistic = pool.policy(cudaMemPoolReuseAllowOpportunistic);
        const int internal = pool.policy(cudaMemPoolReuseAllowInternalDependencies);
        CHECK(pool.error());
        printf("pool: opportunistic %d, internal dependencies %d\n", opportunistic, internal);

        // One block travels: A fills it and gives it back, B gets it (the
        // same bytes, if the pool handed it over), fills and sums it and
        // gives it back, and A gets it again in the next round.
        for (int r = 0; r < rounds; r++) {
            int* pa = static_cast<int*>(pool.get(bytes, a));
            CHECK(pool.error());
            fill<<<(n + 255) / 256, 256, 0, a>>>(pa, n, r + 1);
            pool.put(pa, a);
            if (late) {
                busy<<<1, 1, 0, a>>>();
                CHECK(cudaMemcpyAsync(words + r, staged + r, sizeof(unsigned long long), cudaMemcpyHostToDevice, a));
            }
            pool.hand(a, b);
            int* pb = static_cast<int*>(pool.get(bytes, b));
            CHECK(pool.error());
            handed += pb == pa;
            fill<<<(n + 255) / 256, 256, 0, b>>>(pb, n, 2 * (r + 1));
            sum<<<128, 256, 0, b>>>(pb, n, sums + r);
            if (late) add<<<1, 1, 0, b>>>(words + r, sums + r);
            pool.put(pb, b);
            pool.hand(b, a);
            CHECK(pool.error());
        }
        CHECK(cudaGetLastError());
        unsigned long long got[64];
        CHECK(cudaMemcpyAsync(got, sums, rounds * sizeof(unsigned long long), cudaMemcpyDeviceToHost, b));
        CHECK(cudaStreamSynchronize(b));
        CHECK(cudaStreamSynchronize(a));
        for (int r = 0; r < rounds; r++) right += got[r] == 2ull * (r + 1) * n + (late ? r + 1 : 0);
        reserved = pool.reserved_high();
        CHECK(pool.error());
    }
    printf("%d of %d rounds: B reused the block A freed\n", handed, rounds);
    printf("%d of %d rounds summed correctly\n", right, rounds);
    printf("pool reserved at most %llu MiB for blocks of %d MiB\n", (unsigned long long)(reserved >> 20), mib);
    CHECK(cudaFree(sums));
    if (late) {
        CHECK(cudaFree(words));
        CHECK(cudaFreeHost(staged));
    }
    CHECK(cudaStreamDestroy(a));
    CHECK(cudaStreamDestroy(b));
    return 0;
}
