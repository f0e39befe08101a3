// launch_ex.cu's race through a graph built by hand: the buffer comes
// from cudaMallocAsync on stream a, and the reader is a kernel node added
// with cudaGraphAddKernelNode, its graph launched on stream b with no
// event ordering it after a's kernel that fills the buffer. The library
// learns the kernel node's parameters when the graph is instantiated and
// judges them at each launch on b: an unordered use (day070's
// cross_stream check). Before, it judged only a graph's memory nodes and
// unordered_uses stayed 0. The source scan names hand-built nodes for
// review too ("work the statistics library does not see").
// want: unordered_uses|work the statistics library does not see
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
    int n = 1 << 20;
    cudaStream_t a, b;
    cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
    float *x = NULL, *out = NULL;
    cudaMallocAsync((void**)&x, n * sizeof(float), a);
    cudaMallocAsync((void**)&out, sizeof(float), b);
    cudaMemsetAsync(out, 0, sizeof(float), b);
    fill<<<(n + 255) / 256, 256, 0, a>>>(x, n);
    cudaGraph_t g;
    cudaGraphCreate(&g, 0);
    const float* in = x;
    void* args[] = {(void*)&in, (void*)&out, (void*)&n};
    cudaKernelNodeParams p = {};
    p.func = (void*)total;
    p.gridDim = dim3(1);
    p.blockDim = dim3(256);
    p.kernelParams = args;
    cudaGraphNode_t node;
    cudaGraphAddKernelNode(&node, g, NULL, 0, &p);
    cudaGraphExec_t e;
    cudaGraphInstantiateWithFlags(&e, g, 0);
    cudaGraphLaunch(e, b);
    float got = 0;
    cudaMemcpyAsync(&got, out, sizeof got, cudaMemcpyDeviceToHost, b);
    cudaStreamSynchronize(b);
    cudaStreamSynchronize(a);
    printf("sum %.0f of %d\n", got, n);
    cudaGraphExecDestroy(e);
    cudaGraphDestroy(g);
    cudaFreeAsync(x, a);
    cudaFreeAsync(out, b);
    cudaStreamSynchronize(a);
    cudaStreamSynchronize(b);
    return 0;
}
