// A device's attributes asked (kernels/fail_test.go): whether it has
// pools, then the handle types its pools export, each get's result and
// value printed (a run may make one fail, by the attribute's name).
#include <stdio.h>
int cudaDeviceGetAttribute(int*, int, int);
int main() {
  int v = 7;
  int r = cudaDeviceGetAttribute(&v, 115, 0);  /* cudaDevAttrMemoryPoolsSupported */
  printf("pools %d %x\n", r, (unsigned)v);
  v = 7;
  r = cudaDeviceGetAttribute(&v, 119, 0);  /* cudaDevAttrMemoryPoolSupportedHandleTypes */
  printf("handle types %d %x\n", r, (unsigned)v);
  return 0;
}
