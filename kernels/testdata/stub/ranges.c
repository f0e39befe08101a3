// Uses of one cudaMalloc allocation by byte range (kernels/races_test.go):
// three pools' counters of 24 bytes each, side by side. Stream a clears
// the first two pools' counters at once, records an event that b waits
// for, then resets its own offset (the first 8 bytes) again: b's reset of
// the second pool's offset is ordered after the clearing and touches no
// byte of a's later reset, so it is no race. Then a clears the third
// pool's counters with no event, and b resets that pool's offset: a race.
#include <stddef.h>
int cudaMalloc(void**, size_t); int cudaFree(void*);
int cudaStreamCreateWithFlags(void**, unsigned); int cudaEventCreate(void**);
int cudaEventRecord(void*, void*); int cudaStreamWaitEvent(void*, void*, unsigned);
int cudaMemsetAsync(void*, int, size_t, void*); int cudaDeviceSynchronize(void);
int main() {
  void *p, *a, *b, *e;
  cudaMalloc(&p, 72);
  cudaStreamCreateWithFlags(&a, 1);
  cudaStreamCreateWithFlags(&b, 1);
  cudaEventCreate(&e);
  cudaMemsetAsync(p, 0, 48, a);
  cudaEventRecord(e, a);
  cudaStreamWaitEvent(b, e, 0);
  cudaMemsetAsync(p, 0, 8, a);
  cudaMemsetAsync((char*)p + 24, 0, 8, b);
  cudaMemsetAsync((char*)p + 48, 0, 24, a);
  cudaMemsetAsync((char*)p + 48, 0, 8, b);
  cudaDeviceSynchronize();
  cudaFree(p);
  return 0;
}
