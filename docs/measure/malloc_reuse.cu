// Does cudaMalloc hand back, uncleared, memory that a freed allocation of
// the same size held (Day 87's stream-pools relies on it to show counters
// init leaves as they come)? Build and run it: nvcc -o reuse malloc_reuse.cu && ./reuse
// H100, CUDA 13.0, 2026-11-24: both lines said same 1, first word ffffffffffffffff.
#include <cstdio>
#include <cuda_runtime.h>
int main() {
    cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    void *where, *counts, *before, *arena, *counters, *lone_before, *lone;
    cudaMalloc(&where, 8 * 4 * 1024 * 8); cudaMalloc(&counts, 48);
    cudaMalloc(&before, 96); cudaMemsetAsync(before, 0xff, 96, s); cudaFree(before);
    cudaMalloc(&arena, 4 << 19); cudaMalloc(&counters, 96);
    unsigned long long v = 0; cudaMemcpy(&v, counters, 8, cudaMemcpyDeviceToHost);
    printf("kept chunk: before %p counters %p same %d first word %llx\n", before, counters, before == counters, v);
    cudaMalloc(&lone_before, 96); cudaMemset(lone_before, 0xff, 96); cudaFree(lone_before);
    cudaMalloc(&lone, 96); cudaMemcpy(&v, lone, 8, cudaMemcpyDeviceToHost);
    printf("again: before %p now %p same %d first word %llx\n", lone_before, lone, lone_before == lone, v);
    return 0;
}
