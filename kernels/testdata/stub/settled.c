// A hand that skips the wait when the event is already done (review/blind7
// strict-pool): whether it waits depends on the host's timing. The stub
// answers not ready until the host waited ($STUB_QUERY_PENDING); with
// $LESSONS_STATS_SETTLED_QUERIES=1 the library waits first, and the query
// answers ready every time (kernels/query_test.go).
#include <stdio.h>
int cudaStreamCreate(void**); int cudaEventCreate(void**); int cudaEventRecord(void*, void*);
int cudaEventQuery(void*); int cudaStreamQuery(void*); int cudaStreamWaitEvent(void*, void*, unsigned);
int main() {
  void *a, *b, *e;
  cudaStreamCreate(&a); cudaStreamCreate(&b);
  cudaEventCreate(&e);
  cudaEventRecord(e, a);
  int event = cudaEventQuery(e);
  if (event != 0) cudaStreamWaitEvent(b, e, 0);
  cudaEventRecord(e, a);
  int stream = cudaStreamQuery(a);
  printf("event %s, stream %s\n", event == 0 ? "ready" : "pending", stream == 0 ? "ready" : "pending");
  return 0;
}
