// Trims before and after the host waits (kernels/fail_test.go): a memset
// and a free queued on a stream, a pool trim and a graph memory trim (both
// before the wait: counted), then the stream waited for and both again
// (not counted); then work that holds nothing freed (a memset of a live
// buffer, as graph-alloc's busy kernel) queued and both again (not
// counted: it keeps nothing a trim would give back).
#include <stddef.h>
int cudaMallocAsync(void**, size_t, void*); int cudaFreeAsync(void*, void*);
int cudaStreamCreate(void**); int cudaMemsetAsync(void*, int, size_t, void*);
int cudaStreamSynchronize(void*); int cudaMemPoolTrimTo(void*, size_t); int cudaDeviceGraphMemTrim(int);
int main() {
  void *s, *p;
  cudaStreamCreate(&s);
  cudaMallocAsync(&p, 1 << 20, s);
  cudaMemsetAsync(p, 0, 1 << 20, s);
  cudaFreeAsync(p, s);
  cudaMemPoolTrimTo(0, 0);
  cudaDeviceGraphMemTrim(0);
  cudaStreamSynchronize(s);
  cudaMemPoolTrimTo(0, 0);
  cudaDeviceGraphMemTrim(0);
  cudaMallocAsync(&p, 1 << 20, s);
  cudaStreamSynchronize(s);
  cudaMemsetAsync(p, 0, 1 << 20, s);
  cudaMemPoolTrimTo(0, 0);
  cudaDeviceGraphMemTrim(0);
  cudaFreeAsync(p, s);
  cudaStreamSynchronize(s);
  return 0;
}
