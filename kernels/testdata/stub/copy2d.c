// 2D copies and memsets on streams (kernels/fail_test.go): a buffer of
// 1000 bytes from cudaMallocAsync on stream a is read on stream b by a
// cudaMemcpy2DAsync of one row, with no event ordering it after the
// allocation (a race); on b, a cudaMemset2DAsync of the 1000 bytes of e
// (b's) in 3 rows of 300 bytes 400 apart runs past its end (1100 bytes),
// and one of 2 rows (700) fits.
#include <stddef.h>
int cudaMallocAsync(void**, size_t, void*); int cudaFreeAsync(void*, void*);
int cudaStreamCreateWithFlags(void**, unsigned); int cudaStreamSynchronize(void*);
int cudaMemcpy2DAsync(void*, size_t, const void*, size_t, size_t, size_t, int, void*);
int cudaMemset2DAsync(void*, size_t, int, size_t, size_t, void*);
int main() {
  void *a, *b, *d, *e;
  cudaStreamCreateWithFlags(&a, 1);
  cudaStreamCreateWithFlags(&b, 1);
  cudaMallocAsync(&d, 1000, a);
  cudaMallocAsync(&e, 1000, b);
  cudaMemcpy2DAsync(e, 1000, d, 1000, 1000, 1, 3, b);
  cudaMemset2DAsync(e, 400, 0, 300, 3, b);
  cudaMemset2DAsync(e, 400, 0, 300, 2, b);
  cudaStreamSynchronize(a);
  cudaStreamSynchronize(b);
  cudaFreeAsync(d, a);
  cudaFreeAsync(e, b);
  cudaStreamSynchronize(a);
  cudaStreamSynchronize(b);
  return 0;
}
