// Copies and memsets past the end of their buffers (kernels/fail_test.go):
// pinned host memory of 800 bytes and a device buffer of 1000; a copy that
// fits, a copy into the host buffer's second half that runs 400 bytes past
// it, a copy of 1200 bytes out of both (counted once), a memset that fits,
// a cudaMemset past the device buffer's end, and a cudaMemcpy that fits:
// three past the end. Then copies to and from the host that are not
// pinned: one to pageable memory, one that starts right past the pinned
// buffer's end (two), and one from memory the program registered (not
// counted).
#include <stddef.h>
int cudaMallocAsync(void**, size_t, void*); int cudaFreeAsync(void*, void*);
int cudaMallocHost(void**, size_t); int cudaFreeHost(void*);
int cudaStreamCreateWithFlags(void**, unsigned); int cudaStreamSynchronize(void*);
int cudaMemcpyAsync(void*, const void*, size_t, int, void*); int cudaMemcpy(void*, const void*, size_t, int);
int cudaMemsetAsync(void*, int, size_t, void*); int cudaMemset(void*, int, size_t);
int cudaHostRegister(void*, size_t, unsigned); int cudaHostUnregister(void*);
static char pageable[256], registered[256];
int main() {
  void *s, *h, *d;
  cudaStreamCreateWithFlags(&s, 1);
  cudaMallocHost(&h, 800);
  cudaMallocAsync(&d, 1000, s);
  cudaMemcpyAsync(h, d, 800, 2, s);
  cudaMemcpyAsync((char*)h + 400, d, 800, 2, s);
  cudaMemcpyAsync(d, h, 1200, 1, s);
  cudaMemsetAsync(d, 0, 1000, s);
  cudaMemset((char*)d + 500, 0, 600);
  cudaMemcpyAsync(pageable, d, 64, 2, s);
  cudaMemcpyAsync((char*)h + 800, d, 8, 2, s);
  cudaHostRegister(registered, sizeof registered, 0);
  cudaMemcpyAsync(d, registered, sizeof registered, 1, s);
  cudaStreamSynchronize(s);
  cudaHostUnregister(registered);
  cudaMemcpy(h, d, 800, 2);
  cudaFreeAsync(d, s);
  cudaStreamSynchronize(s);
  cudaFreeHost(h);
  return 0;
}
