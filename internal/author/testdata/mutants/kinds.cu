// The families of record version 8 at several sites: a stream's waits
// for events (polled instead), allocations from a configured pool (made
// from the device's pool instead), waits for the device (for one stream
// instead), events of arrays (the first one for all), and the statement
// before a barrier (moved after it).
#include <cuda_runtime.h>
#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) return 1; } while (0)

__global__ void fill(float* x, int n) {}

__global__ void take(int* out) {
    __shared__ int used, last;
    // BEGIN SOLUTION
    if (threadIdx.x == 0) used = 0;
    __syncthreads();
    out[threadIdx.x] = atomicAdd(&used, 1);
    if (threadIdx.x == 0) last = -1;
    __syncthreads();
    // END SOLUTION
    if (last == -1) out[0] = used;
}

int main() {
    cudaStream_t s[2];
    cudaEvent_t done[4], ready;
    cudaMemPool_t pool;
    float* x[4];
    for (int i = 0; i < 4; i++) {
        // BEGIN SOLUTION
        CHECK(cudaMallocFromPoolAsync((void**)&x[i], 4096, pool, s[i % 2]));
        fill<<<4, 256, 0, s[i % 2]>>>(x[i], 1024);
        CHECK(cudaEventRecord(done[i], s[i % 2]));
        CHECK(cudaStreamWaitEvent(s[(i + 1) % 2], done[i], 0));
        // END SOLUTION
    }
    // BEGIN SOLUTION
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMallocFromPoolAsync((void**)&x[0], 4096, pool, s[0]));
    CHECK(cudaEventRecord(ready, s[0]));
    CHECK(cudaStreamWaitEvent(s[1], ready, 0));
    CHECK(cudaEventSynchronize(done[3]));
    CHECK(cudaDeviceSynchronize());
    // END SOLUTION
    return 0;
}
