// A pipeline over several streams, each iteration allocating its buffer in
// stream order.
#include <cstdio>
#include <cstdint>
#include <cinttypes>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void scale(float* x, int n, float factor) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = factor * (float)i;
}

int main() {
    const int streams = 4, iterations = 12, n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t s[streams];
    for (int i = 0; i < streams; i++) CHECK(cudaStreamCreate(&s[i]));

    for (int it = 0; it < iterations; it++) {
        cudaStream_t stream = s[it % streams];
        float* d = nullptr;
        // TODO: allocate d (bytes) on stream with cudaMallocAsync, launch
        // scale on stream, and free d on stream with cudaFreeAsync.
        // BEGIN SOLUTION
        CHECK(cudaMallocAsync(&d, bytes, stream));
        scale<<<(n + 255) / 256, 256, 0, stream>>>(d, n, 2.0f);
        CHECK(cudaFreeAsync(d, stream));
        // STUB
        // (void)d;
        // (void)stream;
        // END SOLUTION
    }
    CHECK(cudaGetLastError());
    for (int i = 0; i < streams; i++) CHECK(cudaStreamSynchronize(s[i]));

    cudaMemPool_t pool;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    uint64_t high = 0;
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high));
    printf("%d iterations on %d streams; pool used high watermark: %" PRIu64 " bytes\n", iterations, streams, high);
    for (int i = 0; i < streams; i++) CHECK(cudaStreamDestroy(s[i]));
    return 0;
}
