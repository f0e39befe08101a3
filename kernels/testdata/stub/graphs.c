// Executable graphs (kernels/fail_test.go): three made, from two graphs
// (cudaGraphInstantiate and its WithFlags kin); one destroyed, and both
// graphs destroyed, which leaves the other two executable graphs.
#include <stddef.h>
int cudaGraphCreate(void**, unsigned); int cudaGraphDestroy(void*);
int cudaGraphInstantiate(void**, void*, void*, void*, size_t);
int cudaGraphInstantiateWithFlags(void**, void*, unsigned long long);
int cudaGraphExecDestroy(void*);
int main() {
  void *g, *h, *a, *b, *c;
  cudaGraphCreate(&g, 0);
  cudaGraphCreate(&h, 0);
  cudaGraphInstantiate(&a, g, 0, 0, 0);
  cudaGraphInstantiateWithFlags(&b, h, 1);
  cudaGraphInstantiateWithFlags(&c, h, 0);
  cudaGraphExecDestroy(b);
  cudaGraphDestroy(g);
  cudaGraphDestroy(h);
  return 0;
}
