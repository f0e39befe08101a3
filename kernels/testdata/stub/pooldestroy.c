// Pools made and destroyed (kernels/fail_test.go): two pools made, one
// used and destroyed, the other used and left at exit; then an event
// recorded and waited for, and the record's result printed (a run may
// make it fail).
#include <stdio.h>
#include <stddef.h>
int cudaMemPoolCreate(void**, const void*); int cudaMemPoolDestroy(void*);
int cudaMemPoolTrimTo(void*, size_t); int cudaStreamCreate(void**); int cudaEventCreate(void**);
int cudaEventRecord(void*, void*); int cudaStreamWaitEvent(void*, void*, unsigned);
int main() {
  char props[128] = {0};
  void *kept, *gone, *a, *b, *e;
  cudaMemPoolCreate(&kept, props);
  cudaMemPoolCreate(&gone, props);
  cudaMemPoolTrimTo(kept, 0);
  cudaMemPoolTrimTo(gone, 0);
  cudaMemPoolDestroy(gone);
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  cudaEventCreate(&e);
  int r = cudaEventRecord(e, a);
  int w = cudaStreamWaitEvent(b, e, 0);
  printf("record %d wait %d\n", r, w);
  return 0;
}
