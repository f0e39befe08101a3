// Day 1: add two vectors on the GPU, one element per thread.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, int n) {
    // BEGIN SOLUTION
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
    // STUB
    // // TODO: compute this thread's index i; when i < n, set c[i] = a[i] + b[i].
    // END SOLUTION
}

int main() {
    const int n = 1 << 20;
    float *a, *b, *c;
    cudaMallocManaged(&a, n * sizeof(float));
    cudaMallocManaged(&b, n * sizeof(float));
    cudaMallocManaged(&c, n * sizeof(float));
    for (int i = 0; i < n; i++) {
        a[i] = i;
        b[i] = 2 * i;
        c[i] = 0;
    }
    add<<<(n + 255) / 256, 256>>>(a, b, c, n);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        printf("CUDA error: %s\n", cudaGetErrorString(err));
        return 1;
    }
    int right = 0;
    for (int i = 0; i < n; i++) {
        if (c[i] == 3.0f * i) right++;
    }
    printf("%d of %d sums right\n", right, n);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return 0;
}
