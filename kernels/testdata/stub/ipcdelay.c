// A record of an interprocess event waits on the host when the run asks
// ($LESSONS_STATS_IPC_DELAY, kernels/fail_test.go); a record of an
// ordinary event does not. Prints the milliseconds each record took, at
// least (a sleep is never shorter than asked).
#include <stdio.h>
#include <time.h>
int cudaEventCreateWithFlags(void**, unsigned); int cudaEventRecord(void*, void*);
static long ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000L + t.tv_nsec / 1000000L; }
int main() {
  void *ipc, *plain;
  cudaEventCreateWithFlags(&ipc, 0x4 | 0x2);
  cudaEventCreateWithFlags(&plain, 0x2);
  long a = ms();
  cudaEventRecord(ipc, 0);
  long b = ms();
  cudaEventRecord(plain, 0);
  long c = ms();
  printf("ipc %s, plain %s\n", b - a >= 40 ? "waited" : "at once", c - b >= 40 ? "waited" : "at once");
  return 0;
}
