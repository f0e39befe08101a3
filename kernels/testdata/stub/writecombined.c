// Device results copied into write-combined host memory
// (kernels/fail_test.go): a write-combined buffer is the source of a copy
// to the device (its use: not counted), then the destination of one
// asynchronous copy back, into its middle, and of one cudaMemcpy of kind
// Default from a device allocation (two); copies back into plain pinned
// memory, mapped memory, and the write-combined buffer's address once
// it is freed are not counted.
#include <stddef.h>
int cudaMalloc(void**, size_t); int cudaFree(void*);
int cudaHostAlloc(void**, size_t, unsigned); int cudaMallocHost(void**, size_t); int cudaFreeHost(void*);
int cudaMemcpy(void*, const void*, size_t, int); int cudaMemcpyAsync(void*, const void*, size_t, int, void*);
int cudaStreamSynchronize(void*);
enum { toDevice = 1, toHost = 2, either = 4, mappedFlag = 2, writeCombinedFlag = 4 };
int main() {
  const size_t n = 1 << 20;
  void *dev, *wc, *mapped, *plain;
  cudaMalloc(&dev, n);
  cudaHostAlloc(&wc, n, writeCombinedFlag);
  cudaHostAlloc(&mapped, n, mappedFlag);
  cudaMallocHost(&plain, n);
  cudaMemcpyAsync(dev, wc, n, toDevice, 0);
  cudaMemcpyAsync((char*)wc + 4096, dev, 4096, toHost, 0);
  cudaMemcpy(wc, dev, n, either);
  cudaMemcpyAsync(plain, dev, n, toHost, 0);
  cudaMemcpyAsync(mapped, dev, n, toHost, 0);
  cudaStreamSynchronize(0);
  cudaFreeHost(wc);
  cudaMemcpyAsync(wc, dev, 4096, toHost, 0);
  cudaStreamSynchronize(0);
  cudaFreeHost(mapped);
  cudaFreeHost(plain);
  cudaFree(dev);
  return 0;
}
