// A child made by a raw clone (no fork handlers ran: the library does not
// follow it) whose first CUDA call is a launch (kernels/fail_test.go):
// "kernel" calls cudaLaunchKernel, "stub" __cudaLaunchKernel (nvcc 13's
// <<< >>>), "graph" cudaGraphLaunch, "cooperative"
// cudaLaunchCooperativeKernel, "ex" cudaLaunchKernelExC
// (cudaLaunchKernelEx). The library ends the child before the launch is
// made (exit status 72); the parent prints how the child ended. A launch is work as much as an allocation: before, a child whose
// first call was a launch ran it, with its mark alone to tell.
#define _GNU_SOURCE
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
typedef struct { unsigned x, y, z; } dim3;
int cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, void*);
int __cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, void*);
int cudaGraphLaunch(void*, void*);
int cudaLaunchCooperativeKernel(const void*, dim3, dim3, void**, size_t, void*);
typedef struct { dim3 grid, block; size_t shared; void* stream; void* attrs; unsigned n; } LaunchConfig;
int cudaLaunchKernelExC(const LaunchConfig*, const void*, void**);
int cudaFree(void*);
static void kernel(void) {}
int main(int argc, char** argv) {
  const char* how = argc > 1 ? argv[1] : "kernel";
  cudaFree(NULL);
  fflush(stdout);
  long pid = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
  if (pid == 0) {
    dim3 one = {1, 1, 1};
    int r;
    if (strcmp(how, "stub") == 0) r = __cudaLaunchKernel((const void*)kernel, one, one, NULL, 0, NULL);
    else if (strcmp(how, "graph") == 0) r = cudaGraphLaunch((void*)1, NULL);
    else if (strcmp(how, "cooperative") == 0) r = cudaLaunchCooperativeKernel((const void*)kernel, one, one, NULL, 0, NULL);
    else if (strcmp(how, "ex") == 0) {
      LaunchConfig c = {one, one, 0, NULL, NULL, 0};
      r = cudaLaunchKernelExC(&c, (const void*)kernel, NULL);
    }
    else r = cudaLaunchKernel((const void*)kernel, one, one, NULL, 0, NULL);
    printf("the child launched (%d)\n", r);
    fflush(stdout);
    _exit(0);
  }
  int st = 0;
  if (pid < 0 || waitpid((pid_t)pid, &st, 0) < 0) return 1;
  printf("child %s %d\n", WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
  return 0;
}
