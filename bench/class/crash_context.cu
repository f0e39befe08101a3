// Hostile: an illegal address in a kernel, which kills its CUDA context.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void poke(int* p) { p[threadIdx.x] = 1; }
int main() {
    poke<<<1, 32>>>((int*)0x10);
    cudaError_t e = cudaDeviceSynchronize();
    printf("after the kernel: %s\n", cudaGetErrorString(e));
    void* d;
    e = cudaMallocAsync(&d, 1 << 20, 0);
    printf("allocating after: %s\n", cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}
