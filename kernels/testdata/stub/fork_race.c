// A forked child whose first CUDA call finds the record's channel in
// place (the library's look before the call) and, while the call is made,
// has /dev/null put at the channel's number (kernels/fail_test.go): what
// a second thread of the child, swapping the two in a loop, does when it
// wins the race. The stand-in runtime runs stubInCall inside cudaMalloc,
// so the swap lands there every time. Before, the library's start frame
// found no channel and the child went on silent: the grader saw no child.
// "keep" keeps a copy of the channel (the mark reaches it); "drop" closes
// every copy, so that only the count of children in the program's own
// record (Guard's cuda_children) tells.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
int cudaMalloc(void**, size_t);
int cudaFree(void*);
extern void (*stubInCall)(void);
static int chan = -1, keep;
static void swap(void) {
  stubInCall = NULL;
  int null = open("/dev/null", O_WRONLY);
  if (keep) dup(chan);
  dup2(null, chan);
}
int main(int argc, char** argv) {
  keep = argc > 1 && strcmp(argv[1], "keep") == 0;
  cudaFree(NULL);
  for (int fd = 3; fd < 4096 && chan < 0; fd++) {
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode)) chan = fd;
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    stubInCall = swap;
    void* d = NULL;
    for (int i = 0; i < 100; i++) cudaMalloc(&d, 1 << 20);
    printf("the child made its calls\n");
    exit(0);
  }
  int st = 0;
  if (pid < 0 || waitpid(pid, &st, 0) < 0) return 1;
  printf("child %s %d\n", WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
  return 0;
}
