// Memset and memcpy nodes put into a graph by hand (kernels/harness_test.go),
// the graph launched on stream b, the buffer x allocated and filled on
// stream a. The argument says what: "memset" clears x by a memset node,
// with no event ordering b after a; "copy" copies x into y by a 1D memcpy
// node, twice x's bytes (past x's end), after an event; "ordered" is
// memset's graph ordered by that event; "freed" launches the memset's
// graph after x was freed. "setparams" and "update" start from a memset
// node that clears y (no race) and move it onto x in the executable
// graph, by cudaGraphExecMemsetNodeSetParams or by cudaGraphExecUpdate
// from a graph whose node clears x: the race of "memset"; "updateback"
// moves it back onto y after the update, naming the node of the graph e
// was made from (no race). "waitnode" is
// memset's graph ordered by an event wait node on that event, put in the
// graph before the memset node; "recordnode" adds an event record node
// after it, and fills x again on stream a once a waited for that event:
// neither races. "child" and "clone" capture a memset of x on stream c
// (after a wait for that event) and launch it, embedded in the graph as
// a child graph node or cloned, on b after the same wait: the capture's
// memset was judged when captured and is not judged again (before, the
// copy's node was, against the capture's own use on c: a race made up).
// "relaunch" is "ordered" launched again on c with no event: CUDA orders
// a launch of an executable graph behind its previous one, so the two
// launches do not race. The argument may come from $GRAPH_NODES (the GPU's run of it,
// internal/exercise's TestGPUGraphNodesOrder).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__global__ void fill(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 1.0f;
}

int main(int argc, char** argv) {
    const char* what = argc > 1 ? argv[1] : getenv("GRAPH_NODES") != NULL ? getenv("GRAPH_NODES") : "memset";
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
    bool moved = strcmp(what, "setparams") == 0 || strcmp(what, "update") == 0 || strcmp(what, "updateback") == 0;
    cudaMemsetParams p = {};
    p.dst = moved ? (void*)y : (void*)x;
    p.value = 0;
    p.elementSize = 4;
    p.width = n;
    p.height = 1;
    bool waitNode = strcmp(what, "waitnode") == 0 || strcmp(what, "recordnode") == 0;
    cudaGraphNode_t waited;
    if (waitNode) cudaGraphAddEventWaitNode(&waited, g, NULL, 0, filled);
    bool copied = strcmp(what, "child") == 0 || strcmp(what, "clone") == 0;
    cudaStream_t c;
    cudaStreamCreateWithFlags(&c, cudaStreamNonBlocking);
    cudaGraph_t cg = NULL;
    if (copied) {
        cudaStreamWaitEvent(c, filled, 0);
        cudaStreamBeginCapture(c, cudaStreamCaptureModeGlobal);
        cudaMemsetAsync(x, 0, bytes, c);
        cudaStreamEndCapture(c, &cg);
    }
    if (strcmp(what, "child") == 0) cudaGraphAddChildGraphNode(&node, g, NULL, 0, cg);
    else if (strcmp(what, "clone") == 0) {
        cudaGraphDestroy(g);
        cudaGraphClone(&g, cg);
    } else if (strcmp(what, "copy") == 0) cudaGraphAddMemcpyNode1D(&node, g, NULL, 0, y, x, 2 * bytes, cudaMemcpyDeviceToDevice);
    else cudaGraphAddMemsetNode(&node, g, waitNode ? &waited : NULL, waitNode ? 1 : 0, &p);
    cudaEvent_t cleared;
    cudaEventCreate(&cleared);
    cudaGraphNode_t recorded;
    if (strcmp(what, "recordnode") == 0) cudaGraphAddEventRecordNode(&recorded, g, &node, 1, cleared);
    cudaGraphExec_t e;
    cudaGraphInstantiateWithFlags(&e, g, 0);
    p.dst = x;
    if (strcmp(what, "setparams") == 0) cudaGraphExecMemsetNodeSetParams(e, node, &p);
    cudaGraph_t g2 = NULL;
    if (strcmp(what, "update") == 0 || strcmp(what, "updateback") == 0) {
        cudaGraphCreate(&g2, 0);
        cudaGraphNode_t node2;
        cudaGraphAddMemsetNode(&node2, g2, NULL, 0, &p);
#if CUDART_VERSION >= 12000
        cudaGraphExecUpdateResultInfo info;
        cudaGraphExecUpdate(e, g2, &info);
#else
        cudaGraphNode_t bad;
        cudaGraphExecUpdateResult result;
        cudaGraphExecUpdate(e, g2, &bad, &result);
#endif
    }
    if (strcmp(what, "updateback") == 0) {
        p.dst = y;
        cudaGraphExecMemsetNodeSetParams(e, node, &p);
    }
    if (strcmp(what, "freed") == 0) {
        cudaFreeAsync(x, a);
        cudaStreamSynchronize(a);
    }
    if (strcmp(what, "memset") != 0 && !moved && !waitNode) cudaStreamWaitEvent(b, filled, 0);
    cudaGraphLaunch(e, b);
    if (strcmp(what, "relaunch") == 0) cudaGraphLaunch(e, c);
    if (strcmp(what, "recordnode") == 0) {
        cudaStreamWaitEvent(a, cleared, 0);
        fill<<<(n + 255) / 256, 256, 0, a>>>(x, n);
    }
    cudaStreamSynchronize(b);
    cudaStreamSynchronize(a);
    cudaStreamSynchronize(c);
    printf("%s done\n", what);
    cudaGraphExecDestroy(e);
    cudaGraphDestroy(g);
    if (g2 != NULL) cudaGraphDestroy(g2);
    if (cg != NULL) cudaGraphDestroy(cg);
    if (strcmp(what, "freed") != 0) cudaFreeAsync(x, a);
    cudaFree(y);
    cudaEventDestroy(filled);
    cudaEventDestroy(cleared);
    cudaStreamSynchronize(a);
    return 0;
}
