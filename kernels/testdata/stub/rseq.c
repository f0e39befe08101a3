// Restartable sequences in a judged run (kernels/fail_test.go): started
// with glibc's registration off (GLIBC_TUNABLES=glibc.pthread.rseq=0, as
// the grader starts it), no thread has an area (__rseq_size 0), the
// program can register none of its own, on the main thread or on a
// thread it starts (EPERM: the library's filter), and the thread starts
// and runs all the same; sched_getcpu still answers. Without the setting
// the library stops the run before the program starts (exit status 74).
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
int cudaFree(void*);
static __thread struct rseq mine __attribute__((aligned(32)));
static const char* try_register(void) {
  long r = syscall(SYS_rseq, &mine, sizeof mine, 0, RSEQ_SIG);
  if (r == 0) return "registered";
  return errno == EPERM ? "EPERM" : errno == EINVAL ? "EINVAL" : "other";
}
static void* thread(void* out) {
  *(const char**)out = try_register();
  return NULL;
}
int main() {
  const char* t = "not started";
  pthread_t th;
  if (pthread_create(&th, NULL, thread, &t) == 0) pthread_join(th, NULL);
  printf("rseq_size %u, main %s, thread %s, cpu %s\n", __rseq_size, try_register(), t, sched_getcpu() >= 0 ? "ok" : "failed");
  cudaFree(NULL);
  return 0;
}
