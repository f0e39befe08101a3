#include <cuda_runtime.h>
#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    return 1; } } while (0)

__global__ void scale(float* x, int n) {}

int main() {
    cudaStream_t s[2], other;
    for (int it = 0; it < 8; it++) {
        cudaStream_t stream = s[it % 2];
        float* d = nullptr;
        // BEGIN SOLUTION
        CHECK(cudaMallocAsync(&d, 1024, stream));
        scale<<<4, 256, 0, stream>>>(d, 256);
        CHECK(cudaFreeAsync(d, stream));
        // STUB
        // (void)d;
        // END SOLUTION
    }
    CHECK(cudaStreamSynchronize(other));
    return 0;
}
