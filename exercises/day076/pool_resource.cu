// Eight rounds on two streams through a pool resource with one block:
// every round after the first reuses the block the other stream freed.
#include "memory_resource.h"
#include "pool_resource.h"

__global__ void fill(float* x, int n, float v) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) x[i] = v;
}

__global__ void sum(const float* x, int n, float* out) {
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i];
    atomicAdd(out, acc);
}

int main() {
    const int rounds = 8, n = 1 << 22;
    const size_t bytes = n * sizeof(float);
    cudaStream_t s[2];
    for (auto& st : s) CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    float* sums = nullptr;
    CHECK(cudaMalloc(&sums, rounds * sizeof(float)));
    CHECK(cudaMemset(sums, 0, rounds * sizeof(float)));

    async_resource device;
    {
        pool_resource pool(&device, bytes, 1, s[0]);   // one block: every round reuses it
        for (int r = 0; r < rounds; r++) {
            cudaStream_t st = s[r % 2];
            float* x = static_cast<float*>(pool.allocate(bytes, st));
            if (x == nullptr) { fprintf(stderr, "round %d: the pool is empty\n", r); return 1; }
            fill<<<128, 256, 0, st>>>(x, n, (float)(r + 1));
            sum<<<128, 256, 0, st>>>(x, n, sums + r);
            pool.deallocate(x, bytes, st);             // in stream order: after sum
        }
        printf("%d rounds on 2 streams, %d reuses of a block freed on the other stream\n", rounds, pool.reuses_across_streams);
        for (auto& st : s) CHECK(cudaStreamSynchronize(st));
    }   // the pool gives its chunk back to the async resource here
    CHECK(cudaDeviceSynchronize());

    float got[rounds];
    CHECK(cudaMemcpy(got, sums, sizeof got, cudaMemcpyDeviceToHost));
    int right = 0;
    for (int r = 0; r < rounds; r++) right += got[r] == (float)(r + 1) * n;
    printf("%d of %d rounds summed correctly\n", right, rounds);
    CHECK(cudaFree(sums));
    for (auto& st : s) CHECK(cudaStreamDestroy(st));
    return 0;
}
