// Three cudaMalloc calls and an event, each result printed, the buffers
// that came freed, then a device synchronisation (kernels/fail_test.go
// makes some calls fail, and the stand-in runtime's synchronisation
// report a kernel's fault).
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
int cudaMalloc(void**, size_t); int cudaFree(void*); int cudaDeviceSynchronize(void);
int cudaEventCreate(void**); int cudaEventDestroy(void*);
int main() {
  void* p[3] = {0, 0, 0}; void* e = 0; int r[3];
  for (int i = 0; i < 3; i++) r[i] = cudaMalloc(&p[i], 1 << 20);
  int re = cudaEventCreate(&e);
  printf("malloc %d %d %d event %d seen %d\n", r[0], r[1], r[2], re, getenv("LESSONS_STATS_FAIL") != NULL);
  for (int i = 0; i < 3; i++) if (r[i] == 0) cudaFree(p[i]);
  if (re == 0) cudaEventDestroy(e);
  printf("sync %d\n", cudaDeviceSynchronize());
  return 0;
}
