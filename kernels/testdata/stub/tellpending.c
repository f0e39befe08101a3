// A program that tells a hidden run with pending_queries from a plain one
// (attack19), to behave there as a correct program and elsewhere as it
// likes: it asks what CUDA answers "ready" on any GPU, however late: an
// event after cudaEventSynchronize of it, an event never recorded, a
// stream after cudaStreamSynchronize, a stream given no work. The library
// answered each first query "not ready" itself, so each told the run. It
// answers only a query of work the host has not waited for, as a GPU that
// lags its host may (kernels/query_test.go).
#include <stdio.h>
int cudaStreamCreate(void**); int cudaEventCreate(void**); int cudaEventRecord(void*, void*);
int cudaEventQuery(void*); int cudaStreamQuery(void*); int cudaEventSynchronize(void*);
int cudaStreamSynchronize(void*); int cudaMemsetAsync(void*, int, unsigned long, void*);
int main() {
  void *a, *b, *e, *never;
  cudaStreamCreate(&a); cudaStreamCreate(&b);
  cudaEventCreate(&e); cudaEventCreate(&never);
  int told = 0;
  cudaEventRecord(e, a);
  cudaEventSynchronize(e);
  if (cudaEventQuery(e) != 0) told++;        // waited for: done
  if (cudaEventQuery(never) != 0) told++;    // never recorded: done
  cudaMemsetAsync(0, 0, 0, a);
  cudaStreamSynchronize(a);
  if (cudaStreamQuery(a) != 0) told++;       // waited for: done
  if (cudaStreamQuery(b) != 0) told++;       // no work: done
  printf("told %d\n", told);
  return 0;
}
