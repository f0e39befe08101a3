/* The stand-in runtime's device properties (kernels/fail_test.go): a
 * device with pools, in the layout of the toolkit's headers, under the
 * name they give the call (cudaGetDeviceProperties_v2 since CUDA 12). */
#include <cuda_runtime_api.h>
#include <string.h>
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* p, int dev) {
  (void)dev;
  memset(p, 0, sizeof *p);
  strcpy(p->name, "stand-in");
  p->memoryPoolsSupported = 1;
  return cudaSuccess;
}
