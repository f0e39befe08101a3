// An event recorded twice with cudaEventRecordWithFlags, as PyTorch and
// some students record (kernels/fail_test.go): a run's cudaEventRecord:N
// fails the Nth record made either way.
#include <stdio.h>
int cudaStreamCreate(void**); int cudaEventCreate(void**);
int cudaEventRecordWithFlags(void*, void*, unsigned);
int main() {
  void *s, *e;
  cudaStreamCreate(&s);
  cudaEventCreate(&e);
  int a = cudaEventRecordWithFlags(e, s, 0);
  int b = cudaEventRecordWithFlags(e, s, 0);
  printf("first %d second %d\n", a, b);
  return 0;
}
