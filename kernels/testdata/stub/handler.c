// A signal handler that runs inside the library's own call into CUDA (the
// stand-in runtime raises SIGUSR1 there, STUB_RAISE_IN_POOL) and makes a
// hundred cudaMalloc (kernels/fail_test.go): "direct" calls them from the
// handler; "context" makes each the entry of a ucontext, so that the hook
// returns into the C library (__start_context), not into the program.
// Each is ended by the library before its first call (exit status 72);
// before, the hooks took them for the library's own and counted none.
#define _GNU_SOURCE
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
int cudaMalloc(void**, size_t);
int cudaFree(void*);
static int viaContext;
static ucontext_t back, call;
static char stack[64 << 10];
static void* p;
static void onSignal(int sig) {
  (void)sig;
  for (int i = 0; i < 100; i++) {
    if (!viaContext) {
      cudaMalloc(&p, 1 << 20);
      continue;
    }
    getcontext(&call);
    call.uc_stack.ss_sp = stack;
    call.uc_stack.ss_size = sizeof stack;
    call.uc_link = &back;
    makecontext(&call, (void (*)(void))cudaMalloc, 2, &p, (size_t)1 << 20);
    swapcontext(&back, &call);
  }
  printf("a hundred made in the handler\n");
}
int main(int argc, char** argv) {
  viaContext = argc > 1 && strcmp(argv[1], "context") == 0;
  signal(SIGUSR1, onSignal);
  cudaFree(NULL);
  printf("one\n");
  return 0;
}
