// Executable graphs (kernels/fail_test.go): three made, from two graphs
// (cudaGraphInstantiate and its WithFlags kin); one destroyed, and both
// graphs destroyed, which leaves the other two executable graphs. And a
// pool asked two reuse policies (2 and 3) and its reserved memory (5).
#include <stddef.h>
int cudaGraphCreate(void**, unsigned); int cudaGraphDestroy(void*);
int cudaGraphInstantiate(void**, void*, void*, void*, size_t);
int cudaGraphInstantiateWithFlags(void**, void*, unsigned long long);
int cudaGraphExecDestroy(void*);
int cudaDeviceGetMemPool(void**, int); int cudaMemPoolGetAttribute(void*, int, void*);
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
  void* pool;
  unsigned long long v;
  cudaDeviceGetMemPool(&pool, 0);
  cudaMemPoolGetAttribute(pool, 2, &v);
  cudaMemPoolGetAttribute(pool, 3, &v);
  cudaMemPoolGetAttribute(pool, 5, &v);
  return 0;
}
