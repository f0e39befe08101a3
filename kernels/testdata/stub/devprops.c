/* Whether the device has pools, asked through its properties, then
 * through its attribute (kernels/fail_test.go): each answer printed. */
#include <cuda_runtime_api.h>
#include <stdio.h>
int main(void) {
  struct cudaDeviceProp p;
  int r = cudaGetDeviceProperties(&p, 0);
  printf("properties %d %d\n", r, p.memoryPoolsSupported);
  int v = 7;
  r = cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, 0);
  printf("attribute %d %d\n", r, v);
  return 0;
}
