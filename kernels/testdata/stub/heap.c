// The device heap's size (kernels/fail_test.go): after the program's first
// CUDA call, and after it asks for 64 MiB.
#include <stddef.h>
#include <stdio.h>
int cudaStreamCreate(void**); int cudaDeviceSetLimit(int, size_t); int cudaDeviceGetLimit(size_t*, int);
int main() {
  void* s;
  size_t first = 0, then = 0;
  cudaStreamCreate(&s);
  cudaDeviceGetLimit(&first, 2);
  cudaDeviceSetLimit(2, 64 << 20);
  cudaDeviceGetLimit(&then, 2);
  printf("heap %zu then %zu\n", first, then);
  return 0;
}
