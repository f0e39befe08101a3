// Stream 1 allocates and fills a buffer; stream 2 copies from it without
// an event; stream 1 frees it; then an event pairs the streams properly
// for a second buffer, which is never freed; the host waits each turn.
// Stream 1 launches a kernel on each buffer.
#include <stddef.h>
int cudaMallocAsync(void**, size_t, void*); int cudaFreeAsync(void*, void*);
int cudaStreamCreate(void**); int cudaEventCreate(void**); int cudaEventRecord(void*, void*);
int cudaStreamWaitEvent(void*, void*, unsigned); int cudaMemsetAsync(void*, int, size_t, void*);
int cudaMemcpyAsync(void*, const void*, size_t, int, void*); int cudaDeviceSynchronize(void);
int cudaStreamSynchronize(void*); int cudaMemPoolTrimTo(void*, size_t);
typedef struct { unsigned x, y, z; } dim3;
int cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, void*);
static void fill(void) {}
int main() {
  void *s1, *s2, *e, *a, *b, *host = (void*)0x5000;
  cudaStreamCreate(&s1); cudaStreamCreate(&s2); cudaEventCreate(&e);
  cudaMallocAsync(&a, 4 << 20, s1);
  cudaMemsetAsync(a, 0, 4 << 20, s1);
  dim3 one = {1, 1, 1};
  cudaLaunchKernel((const void*)fill, one, one, 0, 0, s1);
  cudaMemcpyAsync(host, a, 4 << 20, 2, s2);      /* no event: a race */
  cudaFreeAsync(a, s1);                            /* stream 2 may still read it */
  for (int i = 0; i < 3; i++) {
    cudaMallocAsync(&b, 1 << 20, s1);
    cudaMemsetAsync(b, 0, 1 << 20, s1);
    cudaLaunchKernel((const void*)fill, one, one, 0, 0, s1);
    cudaEventRecord(e, s1);
    cudaStreamWaitEvent(s2, e, 0);
    cudaMemcpyAsync(host, b, 1 << 20, 2, s2);
    if (i < 2) cudaFreeAsync(b, s2);
    cudaStreamSynchronize(s2);
  }
  cudaMemPoolTrimTo(0, 0);
  cudaDeviceSynchronize();
  return 0;
}
