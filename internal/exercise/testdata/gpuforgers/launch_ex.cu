// A race the judge could not see: the buffer comes from cudaMallocAsync
// on stream a, and stream b's kernel reads it with no event ordering it
// after the allocation (and after a's kernel that fills it), as day070's
// cross_stream forbids. The reader is launched by cudaLaunchKernelEx
// (the header's template calls cudaLaunchKernelExC), which the statistics
// library did not hook: the launch was neither counted nor inspected, so
// unordered_uses stayed 0 and the check passed. Named by nothing the
// source scan knows.
// want: unordered_uses
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void fill(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 1.0f;
}

__global__ void total(const float* x, float* out, int n) {
    float s = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) s += x[i];
    atomicAdd(out, s);
}

int main() {
    const int n = 1 << 20;
    cudaStream_t a, b;
    cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
    float *x = NULL, *out = NULL;
    cudaMallocAsync((void**)&x, n * sizeof(float), a);
    cudaMallocAsync((void**)&out, sizeof(float), b);
    cudaMemsetAsync(out, 0, sizeof(float), b);
    fill<<<(n + 255) / 256, 256, 0, a>>>(x, n);
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(1);
    c.blockDim = dim3(256);
    c.stream = b;
    cudaLaunchKernelEx(&c, total, (const float*)x, out, n);
    float got = 0;
    cudaMemcpyAsync(&got, out, sizeof got, cudaMemcpyDeviceToHost, b);
    cudaStreamSynchronize(b);
    cudaStreamSynchronize(a);
    printf("sum %.0f of %d\n", got, n);
    cudaFreeAsync(x, a);
    cudaFreeAsync(out, b);
    cudaStreamSynchronize(a);
    cudaStreamSynchronize(b);
    return 0;
}
