// Hostile: a kernel that never ends.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void spin(volatile int* flag) { while (*flag == 0) { } }
int main() {
    int* flag;
    cudaMalloc(&flag, sizeof(int));
    cudaMemset(flag, 0, sizeof(int));
    spin<<<1, 1>>>(flag);
    printf("12 iterations on 4 streams\n");
    fflush(stdout);
    cudaDeviceSynchronize();
    return 0;
}
