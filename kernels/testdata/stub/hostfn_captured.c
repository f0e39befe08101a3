// A host function queued on a stream the library does not know captures
// (internal/exercise/testdata/corpus-open/hostfn_captured.cu, here with
// cudaStreamBeginCaptureToGraph, which the library does not hook): the
// runtime takes it into the graph as a host node. The program reads the
// node back and calls its function itself, before any launch, while the
// write queued on the stream before the capture may still run, then
// writes the same bytes on another stream: a race, whatever the node's
// function is. Before, the node held the library's wrapper, and calling
// it told the tracker that the stream's work was done (unordered_uses 0);
// a second call read its freed HostFnCall.
#include <stddef.h>
#include <stdio.h>
#include <driver_types.h>
int cudaMalloc(void**, size_t); int cudaFree(void*);
int cudaStreamCreateWithFlags(void**, unsigned);
int cudaLaunchHostFunc(void*, void (*)(void*), void*);
int cudaMemsetAsync(void*, int, size_t, void*);
int cudaDeviceSynchronize(void);
int cudaStreamBeginCaptureToGraph(void*, void*, const void*, const void*, size_t, int);
int cudaStreamEndCapture(void*, void**);
int cudaGraphCreate(void**, unsigned);
int cudaGraphGetNodes(void*, void**, size_t*);
int cudaGraphNodeGetType(void*, int*);
int cudaGraphHostNodeGetParams(void*, struct cudaHostNodeParams*);
static int ran;
static void nothing(void* d) { ran++; }
int main() {
  void *s, *t, *a, *g = 0, *got = 0;
  cudaStreamCreateWithFlags(&s, 1); cudaStreamCreateWithFlags(&t, 1);
  cudaMalloc(&a, 1024);
  cudaMemsetAsync(a, 1, 1024, s);
  cudaGraphCreate(&g, 0);
  cudaStreamBeginCaptureToGraph(s, g, 0, 0, 0, 0);
  cudaLaunchHostFunc(s, nothing, 0);
  cudaStreamEndCapture(s, &got);
  void* nodes[16];
  size_t n = 16;
  int called = 0;
  if (cudaGraphGetNodes(g, nodes, &n) == 0)
    for (size_t i = 0; i < n; i++) {
      int type = -1;
      struct cudaHostNodeParams hp;
      if (cudaGraphNodeGetType(nodes[i], &type) == 0 && type == 3 && cudaGraphHostNodeGetParams(nodes[i], &hp) == 0) {
        hp.fn(hp.userData);   /* as a first launch would */
        hp.fn(hp.userData);   /* and a second */
        called += 2;
      }
    }
  cudaMemsetAsync(a, 0, 1024, t);
  cudaDeviceSynchronize();
  cudaFree(a);
  printf("called %d, ran %d\n", called, ran);
  return 0;
}
