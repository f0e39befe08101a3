// cudaFree of stream-ordered memory (kernels/fail_test.go): it makes no
// implicit synchronisation (the runtime reference, CUDA 12 and 13), so a
// use still queued on a stream the host has not waited for is a race,
// the allocating stream's included, and it is no host wait: a trim after
// it is unwaited. After the stream's own wait it is not a race; a
// cudaFree of cudaMalloc memory waits for the device as before (no race,
// and the trim after it is waited).
#include <stddef.h>
int cudaMalloc(void**, size_t); int cudaFree(void*);
int cudaMallocAsync(void**, size_t, void*);
int cudaStreamCreate(void**); int cudaMemsetAsync(void*, int, size_t, void*);
int cudaStreamSynchronize(void*); int cudaMemPoolTrimTo(void*, size_t);
int main() {
  void *s, *p, *q, *r;
  cudaStreamCreate(&s);
  cudaMallocAsync(&p, 1 << 20, s);
  cudaMemsetAsync(p, 0, 1 << 20, s);
  cudaFree(p);                 /* counted: the memset may still run */
  cudaMemPoolTrimTo(0, 0);     /* counted: nothing was waited for */
  cudaMallocAsync(&q, 1 << 20, s);
  cudaMemsetAsync(q, 0, 1 << 20, s);
  cudaStreamSynchronize(s);
  cudaFree(q);                 /* not counted */
  cudaMalloc(&r, 1 << 20);
  cudaMemsetAsync(r, 0, 1 << 20, s);
  cudaFree(r);                 /* not counted: it waits for the device */
  cudaMemPoolTrimTo(0, 0);     /* not counted */
  return 0;
}
