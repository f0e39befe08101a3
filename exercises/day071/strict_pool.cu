// A pool whose blocks pass from one stream to another only where the
// program says so: opportunistic reuse and the driver's own inserted
// dependencies are turned off, so the one way a block freed on stream A
// reaches stream B is an event B waits for.
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
    (void)device;
    return false;
}

// make_strict_pool creates a pool of the device's memory on which a block
// freed on one stream is reused by another only through an event the
// allocating stream waits for.
static cudaError_t make_strict_pool(int device, cudaMemPool_t* pool) {
    // TODO 2: create the pool, then turn off the two reuse policies that
    // let a block cross streams without an event of the program's.
    (void)device;
    (void)pool;
    return cudaSuccess;
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
    cudaMemPool_t pool = nullptr;
    CHECK(make_strict_pool(device, &pool));
    int policy[2] = {1, 1};
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &policy[0]));
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &policy[1]));
    printf("pool: opportunistic %d, internal dependencies %d\n", policy[0], policy[1]);

    cudaStream_t a, b;
    CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    cudaEvent_t freed, back;
    CHECK(cudaEventCreateWithFlags(&freed, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&back, cudaEventDisableTiming));
    unsigned long long* sums = nullptr;
    CHECK(cudaMalloc(&sums, rounds * sizeof(unsigned long long)));
    CHECK(cudaMemsetAsync(sums, 0, rounds * sizeof(unsigned long long), b));

    int handed = 0;
    for (int r = 0; r < rounds; r++) {
        int* pa = nullptr;
        CHECK(cudaMallocFromPoolAsync(&pa, bytes, pool, a));
        fill<<<(n + 255) / 256, 256, 0, a>>>(pa, n, r + 1);
        CHECK(cudaFreeAsync(pa, a));
        // TODO 3: hand the block A just freed to B: B's allocation below
        // may take it only if B is ordered after the free.
        int* pb = nullptr;
        CHECK(cudaMallocFromPoolAsync(&pb, bytes, pool, b));
        handed += pb == pa;
        fill<<<(n + 255) / 256, 256, 0, b>>>(pb, n, 2 * (r + 1));
        sum<<<128, 256, 0, b>>>(pb, n, sums + r);
        CHECK(cudaFreeAsync(pb, b));
        // TODO 4: hand the block back: A's allocation in the next round
        // may take it only if A is ordered after B's free.
    }
    CHECK(cudaGetLastError());
    unsigned long long got[64];
    CHECK(cudaMemcpyAsync(got, sums, rounds * sizeof(unsigned long long), cudaMemcpyDeviceToHost, b));
    CHECK(cudaStreamSynchronize(b));
    CHECK(cudaStreamSynchronize(a));
    int right = 0;
    for (int r = 0; r < rounds; r++) right += got[r] == 2ull * (r + 1) * n;
    size_t reserved = 0;
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &reserved));
    printf("%d of %d rounds: B reused the block A freed\n", handed, rounds);
    printf("%d of %d rounds summed correctly\n", right, rounds);
    printf("pool reserved at most %zu MiB for blocks of %d MiB\n", reserved >> 20, mib);
    CHECK(cudaFree(sums));
    CHECK(cudaEventDestroy(freed));
    CHECK(cudaEventDestroy(back));
    CHECK(cudaStreamDestroy(a));
    CHECK(cudaStreamDestroy(b));
    CHECK(cudaMemPoolDestroy(pool));
    return 0;
}
