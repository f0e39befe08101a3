// A child made by a raw clone (no atfork handler: the library does not
// follow it) that first closes every descriptor of its own above 2, the
// record's pipe among them, so that the library's mark can reach no
// pipe, then launches a kernel or a graph, as $LAUNCH_HOW says (kernels/fail_test.go). The
// library must end it (exit status 72) before the launch is made.
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
typedef struct { unsigned x, y, z; } dim3;
int cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, void*);
int cudaLaunchCooperativeKernel(const void*, dim3, dim3, void**, size_t, void*);
int cudaGraphLaunch(void*, void*);
static void kernel(void) {}
static const char* how;
static char stack[1 << 16];
static int work(void* arg) {
  syscall(SYS_close_range, 3, ~0U, 0);
  dim3 one = {1, 1, 1};
  if (strcmp(how, "graph") == 0) cudaGraphLaunch((void*)0x10, NULL);
  else if (strcmp(how, "cooperative") == 0) cudaLaunchCooperativeKernel((const void*)kernel, one, one, NULL, 0, NULL);
  else cudaLaunchKernel((const void*)kernel, one, one, NULL, 0, NULL);
  printf("launched unseen\n");
  fflush(stdout);
  return 0;
}
int main(void) {
  how = getenv("LAUNCH_HOW") != NULL ? getenv("LAUNCH_HOW") : "kernel";
  int st = 0, pid = clone(work, stack + sizeof stack, SIGCHLD, NULL);
  if (pid > 0) waitpid(pid, &st, 0);
  printf("child %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  return 0;
}
