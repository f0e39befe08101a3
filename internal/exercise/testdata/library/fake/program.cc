// Calls of the CUDA runtime, answered by fakecuda.cc, that the statistics
// library must count: uses of memory after its free (and none after the
// block is allocated again), and events made and destroyed.
#include <cuda_runtime_api.h>
#include <stdio.h>

static void kernel() {}

static int launch(void* a, void* b, cudaStream_t s) {
    void* args[2] = {&a, &b};
    return cudaLaunchKernel((const void*)kernel, dim3(1), dim3(1), args, 0, s);
}

int main() {
    cudaStream_t s1 = (cudaStream_t)0x100, s2 = (cudaStream_t)0x200;
    void *p, *q, *r;
    if (cudaMallocAsync(&p, 4096, s1) || cudaMallocAsync(&q, 4096, s1)) return 1;
    launch(p, q, s1);
    cudaFreeAsync(p, s1);
    launch((char*)p + 100, q, s2);     // 1: p was freed before this launch was queued
    cudaMemsetAsync(p, 0, 16, s1);     // 2: on the stream of the free, still after it
    if (cudaMallocAsync(&r, 4096, s2)) return 1;
    if (r != p) return 2;              // the block comes back at the same address
    launch(r, q, s2);                  // allocated again: no use after free
    cudaFreeAsync(r, s2);
    cudaFreeAsync(q, s1);
    cudaMemcpyAsync(q, r, 16, cudaMemcpyDeviceToDevice, s1);  // 3 and 4: both freed

    cudaEvent_t e[3];
    cudaEventCreate(&e[0]);
    cudaEventCreateWithFlags(&e[1], cudaEventDisableTiming);
    cudaEventCreate(&e[2]);
    cudaEventDestroy(e[0]);
    cudaEventDestroy(e[1]);
    printf("done\n");
    return 0;
}
