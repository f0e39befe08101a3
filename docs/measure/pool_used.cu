// What the pool's attributes say about a stream-ordered pipeline (Day 70):
// UsedMemCurrent right after cudaFreeAsync returns, before any
// synchronisation; the high watermarks after 12 iterations on 4 streams
// whose kernels overlap; and whether a smaller request reuses a larger
// freed block. Build: nvcc -arch=native -o pool_used pool_used.cu
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void spin(float* x, int n, long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 1.0f;
}

static uint64_t attr(cudaMemPool_t p, cudaMemPoolAttr a) {
    uint64_t v = 0;
    cudaMemPoolGetAttribute(p, a, &v);
    return v;
}

int main() {
    CHECK(cudaSetDevice(0));
    cudaMemPool_t pool;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    for (cudaMemPoolAttr a : {cudaMemPoolReuseFollowEventDependencies, cudaMemPoolReuseAllowOpportunistic, cudaMemPoolReuseAllowInternalDependencies}) {
        int on = 0;
        CHECK(cudaMemPoolGetAttribute(pool, a, &on));
        printf("reuse policy %d: %s\n", (int)a, on ? "on" : "off");
    }
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t s[4];
    for (auto& st : s) CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cudaEvent_t start[4], stop[4];
    for (int i = 0; i < 4; i++) {
        CHECK(cudaEventCreate(&start[i]));
        CHECK(cudaEventCreate(&stop[i]));
    }
    // Warm-up, then the watermarks start from here.
    float* w;
    CHECK(cudaMallocAsync(&w, bytes, s[0]));
    spin<<<n / 256, 256, 0, s[0]>>>(w, n, 1000);
    CHECK(cudaFreeAsync(w, s[0]));
    CHECK(cudaDeviceSynchronize());
    uint64_t zero = 0;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &zero));

    uint64_t afterFree = ~0ull;
    for (int it = 0; it < 12; it++) {
        cudaStream_t st = s[it % 4];
        if (it < 4) CHECK(cudaEventRecord(start[it], st));
        float* d;
        CHECK(cudaMallocAsync(&d, bytes, st));
        spin<<<n / 256, 256, 0, st>>>(d, n, 2000000);   // about 1 ms
        CHECK(cudaFreeAsync(d, st));
        if (it == 0) afterFree = attr(pool, cudaMemPoolAttrUsedMemCurrent);
        if (it >= 8) CHECK(cudaEventRecord(stop[it % 4], st));
    }
    CHECK(cudaDeviceSynchronize());
    printf("UsedMemCurrent right after the first cudaFreeAsync returned (its kernel still running): %" PRIu64 " bytes\n", afterFree);
    printf("after 12 iterations on 4 streams: UsedMemHigh %" PRIu64 " MiB, ReservedMemHigh %" PRIu64 " MiB\n",
           attr(pool, cudaMemPoolAttrUsedMemHigh) >> 20, attr(pool, cudaMemPoolAttrReservedMemHigh) >> 20);
    // Overlap: each stream's span, and the whole.
    float total = 0;
    for (int i = 0; i < 4; i++) {
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start[i], stop[i]));
        total += ms;
    }
    float whole = 0;
    CHECK(cudaEventElapsedTime(&whole, start[0], stop[3]));
    printf("sum of the 4 streams' spans %.2f ms, first start to last stop %.2f ms\n", total, whole);

    // Reuse is not tied to the size: a smaller request after a free.
    void *a, *b;
    CHECK(cudaMallocAsync(&a, 4u << 20, s[0]));
    CHECK(cudaFreeAsync(a, s[0]));
    CHECK(cudaMallocAsync(&b, 1u << 20, s[0]));
    printf("a 1 MiB request after freeing 4 MiB on the same stream got the same address: %s\n", a == b ? "yes" : "no");
    CHECK(cudaFreeAsync(b, s[0]));
    CHECK(cudaDeviceSynchronize());
    return 0;
}
