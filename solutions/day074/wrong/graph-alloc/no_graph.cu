// expect: each graph's allocation is captured once
// The mistake: no graph at all: the stream allocates, runs and frees at every iteration.
// Allocation inside a CUDA graph: two graphs captured from a stream.
// step allocates a scratch buffer and frees it within the graph; produce
// allocates a result that outlives each launch, read by the stream after
// it, and is freed before the next launch by the instantiation's
// auto-free flag. At the end the graphs' memory goes back to the driver.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void ones(int* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 1;
}

// out[i] = k * in[i]
__global__ void scale(const int* in, int* out, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = k * in[i];
}

// Adds x into *total; each thread a strided share.
__global__ void sum(const int* x, int n, unsigned long long* total) {
    unsigned long long acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i];
    atomicAdd(total, acc);
}

static size_t graph_mem(int device, cudaGraphMemAttributeType a) {
    size_t v = 0;
    cudaDeviceGetGraphMemAttribute(device, a, &v);
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

// Usage: graph_alloc [LAUNCHES] [MIB] (10 launches of 16 MiB by default).
int main(int argc, char** argv) {
    const int device = 0, launches = arg(argc, argv, 1, 10, 1000), mib = arg(argc, argv, 2, 16, 256);
    const int n = mib * (1 << 20) / (int)sizeof(int), blocks = (n + 255) / 256;
    const size_t bytes = (size_t)n * sizeof(int);
    CHECK(cudaSetDevice(device));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int* in = nullptr;
    unsigned long long* totals = nullptr;   // [0]: step's, [1]: produce's
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&totals, 2 * sizeof(unsigned long long)));
    ones<<<blocks, 256, 0, s>>>(in, n);
    CHECK(cudaMemsetAsync(totals, 0, 2 * sizeof(unsigned long long), s));

    cudaGraph_t step_graph = nullptr, produce_graph = nullptr;
    cudaGraphExec_t step = nullptr, produce = nullptr;
    int* out = nullptr;   // produce's result: the same address at every launch
    // TODO 1: capture step from s: allocate a scratch buffer of `bytes`,
    // scale `in` by 2 into it, sum it into totals[0], free it; then
    // instantiate it.

    // TODO 2: capture produce from s: allocate `out` (`bytes`) and scale
    // `in` by 3 into it, without freeing it; instantiate it so that each
    // launch frees what the launch before allocated.

    // TODO 3: launch each graph `launches` times on s; after each launch of
    // produce, sum `out` into totals[1] on s (the sum kernel above).
    for (int i = 0; i < launches; i++) {
        int* scratch = nullptr;
        CHECK(cudaMallocAsync(&scratch, bytes, s));
        scale<<<blocks, 256, 0, s>>>(in, scratch, n, 2);
        sum<<<256, 256, 0, s>>>(scratch, n, totals);
        CHECK(cudaFreeAsync(scratch, s));
        CHECK(cudaMallocAsync(&out, bytes, s));
        scale<<<blocks, 256, 0, s>>>(in, out, n, 3);
        sum<<<256, 256, 0, s>>>(out, n, totals + 1);
        if (i + 1 < launches) CHECK(cudaFreeAsync(out, s));
    }
    CHECK(cudaGetLastError());
    unsigned long long got[2] = {0, 0};
    CHECK(cudaMemcpyAsync(got, totals, sizeof got, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("step total %llu (expected %llu)\n", got[0], 2ull * n * launches);
    printf("produce total %llu (expected %llu)\n", got[1], 3ull * n * launches);
    printf("graph memory: used high %zu MiB, reserved %zu MiB\n",
           graph_mem(device, cudaGraphMemAttrUsedMemHigh) >> 20, graph_mem(device, cudaGraphMemAttrReservedMemCurrent) >> 20);
    // TODO 4: give the graphs' memory back to the driver: the last launch's
    // `out` is still allocated, and the graphs still exist.
    CHECK(cudaFreeAsync(out, s));
    (void)step; (void)produce; (void)step_graph; (void)produce_graph;
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaDeviceGraphMemTrim(device));
    printf("after the trim: graph memory reserved %zu MiB, used %zu MiB\n",
           graph_mem(device, cudaGraphMemAttrReservedMemCurrent) >> 20, graph_mem(device, cudaGraphMemAttrUsedMemCurrent) >> 20);
    CHECK(cudaFree(in));
    CHECK(cudaFree(totals));
    CHECK(cudaStreamDestroy(s));
    return 0;
}
