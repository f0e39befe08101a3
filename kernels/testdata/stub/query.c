// A block pool's hand-out, as the host sees it (kernels/query_test.go):
// two blocks of one cudaMalloc, each written on its own stream and marked
// with its own event. The host asks block Y's event, then hands block X
// to a third stream, which writes it: the answer said nothing of X's
// stream, so the write races X's first one. Then it asks X's own event
// and writes X again on the third stream: that one is ordered.
#include <stddef.h>
int cudaMalloc(void**, size_t); int cudaFree(void*);
int cudaStreamCreate(void**); int cudaEventCreate(void**); int cudaEventRecord(void*, void*);
int cudaEventQuery(void*); int cudaMemsetAsync(void*, int, size_t, void*);
int cudaDeviceSynchronize(void);
int main() {
  void *s1, *s2, *s3, *eX, *eY, *arena;
  cudaStreamCreate(&s1); cudaStreamCreate(&s2); cudaStreamCreate(&s3);
  cudaEventCreate(&eX); cudaEventCreate(&eY);
  cudaMalloc(&arena, 2048);
  char* x = (char*)arena;
  char* y = x + 1024;
  cudaMemsetAsync(x, 1, 1024, s1);
  cudaEventRecord(eX, s1);
  cudaMemsetAsync(y, 2, 1024, s3);
  cudaEventRecord(eY, s3);
  if (cudaEventQuery(eY) == 0) cudaMemsetAsync(x, 0, 1024, s2);  /* one event for many: a race */
  if (cudaEventQuery(eX) == 0) cudaMemsetAsync(x, 0, 1024, s2);  /* its own event: ordered */
  cudaDeviceSynchronize();
  cudaFree(arena);
  return 0;
}
