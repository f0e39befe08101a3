// A program that tells a hidden run with pending_queries from a plain one
// (attack19), to behave there as a correct program and elsewhere as it
// likes: it asks what CUDA answers "ready" on any GPU, however late: an
// event after cudaEventSynchronize of it, an event never recorded, a
// stream after cudaStreamSynchronize, a stream given no work. The library
// answered each first query "not ready" itself, so each told the run. It
// answers only a query of work the host has not waited for, as a GPU that
// lags its host may (kernels/query_test.go).
// Round 21 (review23's findings): a stream made with the handle of one
// destroyed while its work was queued (the library kept the old stream's
// clock with the handle; $STUB_STREAM_REUSE hands the handle again); the
// per-thread default stream asked by a thread that queued nothing there,
// or whose own work the host waited for, while another thread's work is
// queued (one clock for every thread's); an interprocess event opened in
// a forked child after the parent's host waited for its record, and one
// never recorded (the library took an event opened from a handle as
// recorded and not waited for, whatever its maker did); a record that
// failed (cudaEventRecordWithFlags with flags CUDA refuses), which
// records nothing and queues nothing, asked of its event and its stream
// (the library took the record as made).
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
int cudaStreamCreate(void**); int cudaEventCreate(void**); int cudaEventRecord(void*, void*);
int cudaEventQuery(void*); int cudaStreamQuery(void*); int cudaEventSynchronize(void*);
int cudaStreamSynchronize(void*); int cudaMemsetAsync(void*, int, unsigned long, void*);
int cudaStreamDestroy(void*); int cudaEventCreateWithFlags(void**, unsigned);
int cudaEventRecordWithFlags(void*, void*, unsigned);
typedef struct { char reserved[64]; } IpcEventHandle;
int cudaIpcGetEventHandle(IpcEventHandle*, void*); int cudaIpcOpenEventHandle(void**, IpcEventHandle);
#define perThread ((void*)0x2)   // cudaStreamPerThread
static void* queueOnPerThread(void* arg) {
  (void)arg;
  cudaMemsetAsync(0, 0, 0, perThread);
  return NULL;
}
static void* askPerThread(void* told) {
  if (cudaStreamQuery(perThread) != 0) ++*(int*)told;   // this thread's stream has no work: done
  return NULL;
}
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
  // A stream destroyed with its work queued, a new one given its handle.
  void *old, *fresh;
  cudaStreamCreate(&old);
  cudaMemsetAsync(0, 0, 0, old);
  cudaStreamDestroy(old);
  cudaStreamCreate(&fresh);
  if (fresh == old && cudaStreamQuery(fresh) != 0) told++;   // a new stream, no work: done
  // The per-thread default stream: another thread's work queued there.
  pthread_t t;
  pthread_create(&t, NULL, queueOnPerThread, NULL);
  pthread_join(t, NULL);
  if (cudaStreamQuery(perThread) != 0) told++;   // this thread's own: no work, done
  cudaMemsetAsync(0, 0, 0, perThread);
  cudaStreamSynchronize(perThread);
  pthread_create(&t, NULL, queueOnPerThread, NULL);
  pthread_join(t, NULL);
  if (cudaStreamQuery(perThread) != 0) told++;   // its own work waited for: done
  cudaMemsetAsync(0, 0, 0, perThread);
  pthread_create(&t, NULL, askPerThread, &told);
  pthread_join(t, NULL);
  cudaStreamSynchronize(perThread);
  // A record CUDA refuses (flags it does not know): nothing recorded, nothing queued.
  void *fs, *fe;
  cudaStreamCreate(&fs); cudaEventCreate(&fe);
  if (cudaEventRecordWithFlags(fe, fs, 0x80) != 0) {
    if (cudaEventQuery(fe) != 0) told++;    // never recorded: done
    if (cudaStreamQuery(fs) != 0) told++;   // no work: done
  }
  // Interprocess events: one recorded and waited for by the parent before
  // the fork, one never recorded; the child opens both and asks.
  void *shared, *unused;
  IpcEventHandle hs, hu;
  cudaEventCreateWithFlags(&shared, 0x6); cudaEventCreateWithFlags(&unused, 0x6);   // interprocess, no timing
  cudaIpcGetEventHandle(&hs, shared); cudaIpcGetEventHandle(&hu, unused);
  cudaMemsetAsync(0, 0, 0, a);
  cudaEventRecord(shared, a);
  cudaEventSynchronize(shared);
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    void *os, *ou;
    int n = 0;
    cudaIpcOpenEventHandle(&os, hs); cudaIpcOpenEventHandle(&ou, hu);
    if (cudaEventQuery(os) != 0) n++;   // its maker's host waited for it: done
    if (cudaEventQuery(ou) != 0) n++;   // never recorded: done
    exit(n);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFEXITED(status)) told += WEXITSTATUS(status);
  printf("told %d\n", told);
  return 0;
}
