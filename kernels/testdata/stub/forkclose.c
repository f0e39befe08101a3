// A forked child and the record's channel (kernels/fork_test.go): the
// child of each case calls cudaMalloc once, or not at all, after it did
// what $STUB_CHILD says to its descriptors above 2 (the channel among
// them): "keep" nothing, "close" closes them, "replace" puts /dev/null at
// each number, "quiet" closes them and makes no CUDA call, "spawn" keeps
// them and runs a program by system() in place of a CUDA call. The parent
// prints the child's exit status, then allocates once itself.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
int cudaMalloc(void**, size_t);
int main() {
  const char* how = getenv("STUB_CHILD");
  if (how == NULL) how = "keep";
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    int null = strcmp(how, "replace") == 0 ? open("/dev/null", O_WRONLY) : -1;
    for (int fd = 3; fd < 4096; fd++) {
      if (fd == null) continue;
      if (null >= 0) dup2(null, fd);
      else if (strcmp(how, "keep") != 0 && strcmp(how, "spawn") != 0) close(fd);
    }
    if (strcmp(how, "spawn") == 0) return system("true") == -1;
    if (strcmp(how, "quiet") == 0) _exit(0);
    void* p;
    cudaMalloc(&p, 1 << 20);
    return 0;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  printf("child: %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  void* p;
  cudaMalloc(&p, 1 << 20);
  return 0;
}
