// Memset and memcpy nodes put into a graph by hand (kernels/harness_test.go),
// the graph launched on stream b, the buffer x allocated and filled on
// stream a. The argument says what: "memset" clears x by a memset node,
// with no event ordering b after a; "copy" copies x into y by a 1D memcpy
// node, twice x's bytes (past x's end), after an event; "ordered" is
// memset's graph ordered by that event; "freed" launches the memset's
// graph after x was freed.
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

__global__ void fill(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 1.0f;
}

int main(int argc, char** argv) {
    const char* what = argc > 1 ? argv[1] : "memset";
    int n = 1 << 20;
    size_t bytes = n * sizeof(float);
    cudaStream_t a, b;
    cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
    float *x = NULL, *y = NULL;
    cudaMallocAsync((void**)&x, bytes, a);
    cudaMalloc((void**)&y, 2 * bytes);
    fill<<<(n + 255) / 256, 256, 0, a>>>(x, n);
    cudaEvent_t filled;
    cudaEventCreate(&filled);
    cudaEventRecord(filled, a);
    cudaGraph_t g;
    cudaGraphCreate(&g, 0);
    cudaGraphNode_t node;
    if (strcmp(what, "copy") == 0) {
        cudaGraphAddMemcpyNode1D(&node, g, NULL, 0, y, x, 2 * bytes, cudaMemcpyDeviceToDevice);
    } else {
        cudaMemsetParams p = {};
        p.dst = x;
        p.value = 0;
        p.elementSize = 4;
        p.width = n;
        p.height = 1;
        cudaGraphAddMemsetNode(&node, g, NULL, 0, &p);
    }
    cudaGraphExec_t e;
    cudaGraphInstantiateWithFlags(&e, g, 0);
    if (strcmp(what, "freed") == 0) {
        cudaFreeAsync(x, a);
        cudaStreamSynchronize(a);
    }
    if (strcmp(what, "memset") != 0) cudaStreamWaitEvent(b, filled, 0);
    cudaGraphLaunch(e, b);
    cudaStreamSynchronize(b);
    cudaStreamSynchronize(a);
    printf("%s done\n", what);
    cudaGraphExecDestroy(e);
    cudaGraphDestroy(g);
    if (strcmp(what, "freed") != 0) cudaFreeAsync(x, a);
    cudaFree(y);
    cudaEventDestroy(filled);
    cudaStreamSynchronize(a);
    return 0;
}
