// A wait for the legacy default stream covers the blocking streams, not a
// non-blocking one (kernels/fail_test.go): a memset and a free on each,
// the legacy stream waited for, a pool trim (counted: the non-blocking
// stream's free was not waited for); the non-blocking stream waited for,
// a trim (not counted); a memset and a free on the blocking stream, the
// legacy stream waited for, a trim (not counted).
#include <stddef.h>
int cudaMallocAsync(void**, size_t, void*); int cudaFreeAsync(void*, void*);
int cudaStreamCreate(void**); int cudaStreamCreateWithFlags(void**, unsigned);
int cudaMemsetAsync(void*, int, size_t, void*);
int cudaStreamSynchronize(void*); int cudaMemPoolTrimTo(void*, size_t);
int main() {
  void *b, *nb, *p, *q, *t;
  cudaStreamCreate(&b);
  cudaStreamCreateWithFlags(&nb, 1);  // cudaStreamNonBlocking
  cudaMallocAsync(&p, 1 << 20, b);
  cudaMemsetAsync(p, 0, 1 << 20, b);
  cudaMallocAsync(&t, 1 << 20, b);
  cudaFreeAsync(t, b);
  cudaMallocAsync(&q, 1 << 20, nb);
  cudaMemsetAsync(q, 0, 1 << 20, nb);
  cudaFreeAsync(q, nb);
  cudaStreamSynchronize(0);
  cudaMemPoolTrimTo(0, 0);
  cudaStreamSynchronize(nb);
  cudaMemPoolTrimTo(0, 0);
  cudaMemsetAsync(p, 1, 1 << 20, b);
  cudaFreeAsync(p, b);
  cudaStreamSynchronize(0);
  cudaMemPoolTrimTo(0, 0);
  cudaStreamSynchronize(b);
  cudaStreamSynchronize(nb);
  return 0;
}
