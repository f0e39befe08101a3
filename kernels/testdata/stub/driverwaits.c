// The driver's host waits (kernels/fail_test.go): each counts as its
// runtime twin does, cuEventSynchronize in event_syncs too (attack19: a
// program's own cuEventSynchronize waited with event_syncs 0).
#include <stdio.h>
int cudaEventCreate(void**); int cudaStreamCreate(void**); int cudaEventRecord(void*, void*);
int cuCtxSynchronize(void); int cuStreamSynchronize(void*); int cuEventSynchronize(void*);
int main() {
  void *s, *e;
  cudaStreamCreate(&s);
  cudaEventCreate(&e);
  cudaEventRecord(e, s);
  int r = cuCtxSynchronize() | cuStreamSynchronize(s) | cuEventSynchronize(e);
  printf("waits %d\n", r);
  return 0;
}
