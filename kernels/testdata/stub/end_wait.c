// A thread whose CUDA call is in flight as the program ends
// (kernels/fail_test.go): its call, begun before the end frame, is
// counted after it, and the library's end waits for it (up to a second)
// and then ends the process (exit status 72), as end_thread.cu of the
// corpus needs. The worker's call is held inside the stand-in runtime
// (stubInCall) until the test has read the end frame and writes a byte to
// descriptor 4. "forked" does the same in a child forked from inside a
// CUDA call (stubInCall again): the child starts with that call in
// flight, and its end waits for its worker too. The parent prints the
// child's exit status. "plain": the program makes no CUDA call of its
// own, so the worker's is the first, unanswered as the program ends (the
// end frame then goes out from the last exit handler, atExitPlain).
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
int cudaMalloc(void**, size_t);
extern void (*stubInCall)(void);
static int inCall[2];
static pid_t child = -1;
static void hold(void) {
  stubInCall = NULL;
  char c = 'x';
  if (write(inCall[1], &c, 1) != 1 || read(4, &c, 1) != 1) _exit(3);
}
static void* worker(void* arg) {
  void* d = NULL;
  cudaMalloc(&d, 1 << 20);
  printf("the worker's call was counted after the end\n");
  return NULL;
}
static int run(void) {
  if (pipe(inCall) != 0) return 1;
  stubInCall = hold;
  pthread_t t;
  if (pthread_create(&t, NULL, worker, NULL) != 0) return 1;
  char c;
  if (read(inCall[0], &c, 1) != 1) return 1;
  return 0;  // the worker is inside its call
}
static void forkInCall(void) {
  stubInCall = NULL;
  fflush(stdout);
  child = fork();
}
int main(int argc, char** argv) {
  void* d = NULL;
  if (argc > 1 && strcmp(argv[1], "plain") == 0) return run();
  cudaMalloc(&d, 1 << 20);
  if (argc < 2 || strcmp(argv[1], "forked") != 0) return run();
  stubInCall = forkInCall;
  cudaMalloc(&d, 1 << 20);
  if (child == 0) return run();
  int st = 0;
  if (child < 0 || waitpid(child, &st, 0) < 0) return 1;
  printf("child %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  return 0;
}
