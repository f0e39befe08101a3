// Three streams' memsets (kernels/races_test.go): queued with no order
// between them, then (SERIAL set) each stream waiting for the one before
// by an event, as a pipeline whose every stage waits for the whole of the
// work before it. max_unordered_streams is 3 for the first, 1 for the
// second; a host wait between the two rounds orders everything before it.
#include <stdlib.h>
#include <stddef.h>
int cudaMalloc(void**, size_t); int cudaFree(void*);
int cudaStreamCreateWithFlags(void**, unsigned); int cudaEventCreate(void**);
int cudaEventRecord(void*, void*); int cudaStreamWaitEvent(void*, void*, unsigned);
int cudaMemsetAsync(void*, int, size_t, void*); int cudaDeviceSynchronize(void);
int main() {
  void *p, *s[3], *e[3];
  cudaMalloc(&p, 3 * 64);
  for (int i = 0; i < 3; i++) {
    cudaStreamCreateWithFlags(&s[i], 1);
    cudaEventCreate(&e[i]);
  }
  const int serial = getenv("SERIAL") != NULL;
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < 3; i++) {
      if (serial && i > 0) cudaStreamWaitEvent(s[i], e[i - 1], 0);
      if (serial && i == 0 && round > 0) cudaStreamWaitEvent(s[0], e[2], 0);
      cudaMemsetAsync((char*)p + 64 * i, 0, 64, s[i]);
      cudaEventRecord(e[i], s[i]);
    }
  }
  cudaDeviceSynchronize();
  cudaFree(p);
  return 0;
}
