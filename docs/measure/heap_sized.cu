// Day 86's first figure again, with the device heap sized first: the
// kernel of device_malloc.cu (each thread mallocs, writes and frees one
// block) on a heap whose size is set with cudaDeviceSetLimit before the
// first kernel that calls malloc, or left at its default. The heap's size
// is fixed for the life of the context, so each size is its own process.
// Usage: heap_sized [HEAP_MIB [THREADS [BYTES]]]  (HEAP_MIB 0: the default
// heap, nothing set; 65536 threads of 256 bytes unless given).
// Build: nvcc -arch=sm_90 -o heap_sized heap_sized.cu
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void heap_alloc(int bytes, unsigned int* failed) {
    int* p = (int*)malloc(bytes);
    if (p == nullptr) { atomicAdd(failed, 1u); return; }
    p[0] = threadIdx.x;
    free(p);
}

int main(int argc, char** argv) {
    const long heapMiB = argc > 1 ? atol(argv[1]) : 0;
    const int threads = argc > 2 ? atoi(argv[2]) : 1 << 16;
    const int bytes = argc > 3 ? atoi(argv[3]) : 256;
    if (heapMiB < 0 || heapMiB > 65536 || threads < 1 || threads > (1 << 24) || bytes < 4) {
        fprintf(stderr, "usage: heap_sized [HEAP_MIB (0 to 65536)] [THREADS] [BYTES (4 or more)]\n");
        return 2;
    }
    CHECK(cudaSetDevice(0));
    if (heapMiB > 0) CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, (size_t)heapMiB << 20));
    size_t heap = 0;
    CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
    unsigned int* failed = nullptr;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMallocAsync(&failed, sizeof *failed, s));
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    const int block = threads < 256 ? threads : 256;
    // Round 0 warms up (the heap is set up at the first launch), as the
    // lesson's cell does; round 1 is timed.
    float ms = 0;
    unsigned int fails = 0;
    for (int round = 0; round < 2; round++) {
        CHECK(cudaMemsetAsync(failed, 0, sizeof *failed, s));
        CHECK(cudaEventRecord(t0, s));
        heap_alloc<<<(threads + block - 1) / block, block, 0, s>>>(bytes, failed);
        CHECK(cudaEventRecord(t1, s));
        CHECK(cudaMemcpyAsync(&fails, failed, sizeof fails, cudaMemcpyDeviceToHost, s));
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaGetLastError());
        CHECK(cudaEventElapsedTime(&ms, t0, t1));
    }
    printf("heap %zu MiB (%s), %d threads of %d bytes (%zu KiB asked for): malloc+free kernel %.3f ms, %u failed\n",
           heap >> 20, heapMiB > 0 ? "set first" : "default", threads, bytes,
           ((size_t)threads * bytes) >> 10, ms, fails);
    CHECK(cudaFreeAsync(failed, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaEventDestroy(t0));
    CHECK(cudaEventDestroy(t1));
    CHECK(cudaStreamDestroy(s));
    return 0;
}
