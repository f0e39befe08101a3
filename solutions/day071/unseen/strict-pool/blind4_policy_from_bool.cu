// unseen: the driver reads four bytes where the program's bool is one, so what it reads is the bool and whatever the compiler put beside it. In this file's build (host code at -O0, as the grader builds it; read from nvcc 11.8's object code, and the H200's run printed both policies 0 too) the three bytes after the bool are the low ones of the local int that holds cudaMemPoolCreate's result, stored just before and always 0 on this path (the constructor returns early otherwise): the driver reads exactly 0 for both policies, the pool is as strict as asked, and every call, figure and statistic is a correct program's. No record can tell a 0 read from a one-byte 0 from one read from an int; the library cannot know the variable's type, and painting the stack would not reach a live local. The same mistake in the solution's layout (the bool beside the saved frame pointer) reads a non-zero value and fails on the printed policies.
// kind: wrong (an API used with the wrong type; latent where the bytes beside the bool are 0)
// mistake: the constructor passes the address of a bool false to cudaMemPoolSetAttribute for the two reuse policies.
// why it is wrong: the reuse policies are int attributes (the lesson, day 70: "an int, 0 or 1"): the driver reads four bytes from a one-byte variable, three of them whatever lies beside it; where they are not zero the policy stays on.
// source: review/blind4, written without the spec (strict-pool/wrong-policy-from-bool.cu; it passed every check on the H200, main at 578982e); NVIDIA/cuda-python#1272 (an attribute passed with the wrong width)
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
    // ask the device whether it supports memory pools.
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return v != 0;
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
    // what the pool keeps: the pool itself, whatever hand needs,
    // and the first error. (hand needs nothing kept: see hand.)
    cudaMemPool_t pool_ = nullptr;
    cudaError_t first_ = cudaSuccess;
    // keep remembers err if it is the first failure.
    void keep(cudaError_t err) {
        if (err != cudaSuccess && first_ == cudaSuccess) first_ = err;
    }
};

// create the pool on device, with the two reuse policies off that
// let a block cross streams without an event of the program's, and what
// hand needs. A failure is kept for error(), not printed.
StrictPool::StrictPool(int device) {
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
    bool off = false;   // the reuse policies are on/off
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, &off));
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off));
}

// give back what the constructor made.
StrictPool::~StrictPool() {
    if (pool_ != nullptr) cudaMemPoolDestroy(pool_);
}

// the first error.
cudaError_t StrictPool::error() const {
    return first_;
}

// a block from this pool, in s's order.
void* StrictPool::get(size_t bytes, cudaStream_t s) {
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
}

// the block back to the pool, in s's order.
void StrictPool::put(void* p, cudaStream_t s) {
    keep(cudaFreeAsync(p, s));
}

// order to after what from has queued so far; the host goes on.
//
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
}

// the pool's value of attr (an int attribute), asked of the pool.
int StrictPool::policy(cudaMemPoolAttr attr) {
    int v = -1;
    cudaError_t err = pool_ == nullptr ? cudaErrorInvalidValue : cudaMemPoolGetAttribute(pool_, attr, &v);
    if (err != cudaSuccess) {
        keep(err);
        return -1;
    }
    return v;
}

// the most the pool has reserved at once (a 64-bit attribute,
// cuuint64_t: a uint64_t, as Day 69's pool attributes are).
uint64_t StrictPool::reserved_high() {
    uint64_t v = 0;
    cudaError_t err = pool_ == nullptr ? cudaErrorInvalidValue : cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &v);
    if (err != cudaSuccess) {
        keep(err);
        return 0;
    }
    return v;
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

// Usage: strict_pool [ROUNDS] [MIB] (6 rounds of 32 MiB by default).
int main(int argc, char** argv) {
    const int device = 0, rounds = arg(argc, argv, 1, 6, 64), mib = arg(argc, argv, 2, 32, 256);
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
            pool.hand(a, b);
            int* pb = static_cast<int*>(pool.get(bytes, b));
            CHECK(pool.error());
            handed += pb == pa;
            fill<<<(n + 255) / 256, 256, 0, b>>>(pb, n, 2 * (r + 1));
            sum<<<128, 256, 0, b>>>(pb, n, sums + r);
            pool.put(pb, b);
            pool.hand(b, a);
            CHECK(pool.error());
        }
        CHECK(cudaGetLastError());
        unsigned long long got[64];
        CHECK(cudaMemcpyAsync(got, sums, rounds * sizeof(unsigned long long), cudaMemcpyDeviceToHost, b));
        CHECK(cudaStreamSynchronize(b));
        CHECK(cudaStreamSynchronize(a));
        for (int r = 0; r < rounds; r++) right += got[r] == 2ull * (r + 1) * n;
        reserved = pool.reserved_high();
        CHECK(pool.error());
    }
    printf("%d of %d rounds: B reused the block A freed\n", handed, rounds);
    printf("%d of %d rounds summed correctly\n", right, rounds);
    printf("pool reserved at most %llu MiB for blocks of %d MiB\n", (unsigned long long)(reserved >> 20), mib);
    CHECK(cudaFree(sums));
    CHECK(cudaStreamDestroy(a));
    CHECK(cudaStreamDestroy(b));
    return 0;
}
