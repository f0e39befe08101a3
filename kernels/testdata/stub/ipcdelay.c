// A record of an interprocess event waits on the host when the run asks
// ($LESSONS_STATS_IPC_DELAY, kernels/fail_test.go); a record of an
// ordinary event does not; nor does a close of an event this process made,
// while a close of one it opened from another's handle does. Prints
// whether each call waited (a sleep is never shorter than asked).
#include <stdio.h>
#include <time.h>
typedef struct { char reserved[64]; } IpcEventHandle;
int cudaEventCreateWithFlags(void**, unsigned); int cudaEventRecord(void*, void*); int cudaEventDestroy(void*);
int cudaIpcOpenEventHandle(void**, IpcEventHandle); int cudaIpcGetEventHandle(IpcEventHandle*, void*);
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
  IpcEventHandle h;
  void* opened;
  cudaIpcGetEventHandle(&h, ipc);
  cudaIpcOpenEventHandle(&opened, h);
  long d = ms();
  cudaEventDestroy(opened);
  long e = ms();
  printf("ipc %s, plain %s, opened close %s\n", b - a >= 40 ? "waited" : "at once", c - b >= 40 ? "waited" : "at once", e - d >= 40 ? "waited" : "at once");
  return 0;
}
