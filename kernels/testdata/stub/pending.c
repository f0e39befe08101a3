// A host that polls (review/blind4 and blind15 python-handoff: `while not
// read.query(): pass`) and a host that asks once and goes on. The stub
// answers ready at once, as a GPU done before the host asks: the poll
// never spins. With $LESSONS_STATS_PENDING_QUERIES=1 the library answers
// the first query of each record (or of a stream's queued work) "not
// ready" itself: the poll asks again and is counted, the single query
// takes its not-ready branch, and a new record is pending again
// (kernels/query_test.go).
#include <stdio.h>
int cudaStreamCreate(void**); int cudaEventCreate(void**); int cudaEventRecord(void*, void*);
int cudaEventQuery(void*); int cudaStreamQuery(void*); int cudaStreamWaitEvent(void*, void*, unsigned);
int main() {
  void *a, *b, *e;
  cudaStreamCreate(&a); cudaStreamCreate(&b);
  cudaEventCreate(&e);
  int spins = 0;
  for (int round = 0; round < 2; round++) {
    cudaEventRecord(e, a);
    while (cudaEventQuery(e) != 0) spins++;   // the poll
  }
  cudaEventRecord(e, a);
  int once = cudaEventQuery(e);               // asked once
  if (once != 0) cudaStreamWaitEvent(b, e, 0);
  int stream = cudaStreamQuery(b);
  printf("spins %d, once %s, stream %s\n", spins, once == 0 ? "ready" : "pending", stream == 0 ? "ready" : "pending");
  return 0;
}
