// Graphs with memory nodes for the stand-in runtime (fakecuda.cc, built
// into the same libcuda.so.1): a graph made by fakeGraphWithAlloc has one
// allocation node, at an address fixed when the node is made (taken from
// the arena's free list, so a block freed before comes back), and a free
// node of it when asked. A launch allocates and frees in the arena as the
// real graph would.
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <vector>

extern "C" cudaError_t fakeTake(void** p, size_t n);
extern "C" void fakeClaim(void* p, size_t n);
extern "C" cudaError_t fakeGive(void* p);

namespace {
struct FakeNode { cudaGraphNodeType type; void* ptr; size_t bytes; };
struct FakeGraph { std::vector<FakeNode> nodes; };
}  // namespace

extern "C" {
cudaError_t fakeGraphWithAlloc(cudaGraph_t* g, void** dptr, size_t n, int withFree) {
    FakeGraph* fg = new FakeGraph();
    if (fakeTake(dptr, n) != 0) return cudaErrorMemoryAllocation;
    fakeGive(*dptr);                   // allocated only when the graph runs
    fg->nodes.push_back(FakeNode{cudaGraphNodeTypeMemAlloc, *dptr, n});
    if (withFree) fg->nodes.push_back(FakeNode{cudaGraphNodeTypeMemFree, *dptr, n});
    *g = (cudaGraph_t)fg;
    return cudaSuccess;
}
cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t* nodes, size_t* n) {
    FakeGraph* fg = (FakeGraph*)g;
    if (nodes != nullptr)
        for (size_t i = 0; i < *n && i < fg->nodes.size(); i++) nodes[i] = (cudaGraphNode_t)&fg->nodes[i];
    *n = fg->nodes.size();
    return cudaSuccess;
}
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType* t) {
    *t = ((FakeNode*)node)->type;
    return cudaSuccess;
}
cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, cudaMemAllocNodeParams* p) {
    FakeNode* f = (FakeNode*)node;
    if (f->type != cudaGraphNodeTypeMemAlloc) return cudaErrorInvalidValue;
    p->dptr = f->ptr;
    p->bytesize = f->bytes;
    return cudaSuccess;
}
cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* dptr) {
    FakeNode* f = (FakeNode*)node;
    if (f->type != cudaGraphNodeTypeMemFree) return cudaErrorInvalidValue;
    *(void**)dptr = f->ptr;
    return cudaSuccess;
}
cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t, cudaGraph_t*) { return cudaErrorInvalidValue; }
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* e, cudaGraph_t g, unsigned long long) {
    *e = (cudaGraphExec_t)g;
    return cudaSuccess;
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t e, cudaStream_t) {
    for (auto& n : ((FakeGraph*)e)->nodes) {
        if (n.type == cudaGraphNodeTypeMemAlloc) fakeClaim(n.ptr, n.bytes);
        if (n.type == cudaGraphNodeTypeMemFree) fakeGive(n.ptr);
    }
    return cudaSuccess;
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t) { return cudaSuccess; }
}
