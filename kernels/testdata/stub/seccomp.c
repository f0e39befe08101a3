// A judged run's system call filter (kernels/fail_test.go): the program
// may install no filter of its own, by seccomp or by prctl, nor turn on
// syscall user dispatch (prctl 59; turning it off is asked here, which
// succeeds where not judged), nor handle SIGTRAP (asking its handler
// stays allowed) nor open a perf event (a null one: EFAULT where not
// judged), and may not exec (a path that is not there:
// refused, not missing); other calls (a pipe, a prctl of another kind) go
// through.
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
int cudaFree(void*);
int main() {
  struct sock_filter f[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
  struct sock_fprog prog = {1, f};
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  long a = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
  int ea = errno;
  long b = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
  int eb = errno;
  char* argv[] = {"/nonexistent", NULL};
  long c = syscall(SYS_execve, "/nonexistent", argv, NULL);
  int ec = errno;
  int fds[2];
  long d = pipe(fds);
  long e = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
  long g = prctl(59, 0, 0, 0, 0);
  int eg = errno;
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_IGN;
  long h = sigaction(SIGTRAP, &sa, NULL);
  int eh = errno;
  long q = sigaction(SIGTRAP, NULL, &old);
  long p = syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0);
  int ep = errno;
  printf("seccomp %ld %s, prctl %ld %s, execve %ld %s, pipe %ld, dumpable %ld, dispatch %ld %s, trap %ld %s, trap asked %ld, perf %ld %s\n", a,
         ea == EPERM ? "EPERM" : "other", b, eb == EPERM ? "EPERM" : "other", c, ec == EPERM ? "EPERM" : "other", d, e, g,
         g == 0 ? "" : eg == EPERM ? "EPERM" : "other", h, h == 0 ? "" : eh == EPERM ? "EPERM" : "other", q, p, ep == EPERM ? "EPERM" : "other");
  cudaFree(NULL);
  return 0;
}
