// A forked child that keeps its record from the grader by making the
// channel refuse it (kernels/fail_test.go): the parent makes the
// channel's socket non-blocking (O_NONBLOCK is shared by every process
// of the run) with the smallest send buffer, so that its own frame,
// unread, fills it; with "shutdown" it shuts the socket down for writing
// instead, SIGPIPE ignored. The child then calls CUDA. Before, the
// library's write met EAGAIN (or EPIPE) and gave the channel up: the
// child did its calls with no record. The parent prints how the child
// ended.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
int cudaMalloc(void**, size_t);
int cudaFree(void*);
int main(int argc, char** argv) {
  const char* how = argc > 1 ? argv[1] : "nonblock";
  cudaFree(NULL);
  int chan = -1;
  for (int fd = 3; fd < 4096 && chan < 0; fd++) {
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode)) chan = fd;
  }
  if (chan < 0) { printf("no channel\n"); return 1; }
  signal(SIGPIPE, SIG_IGN);
  if (strcmp(how, "shutdown") == 0) shutdown(chan, SHUT_WR);
  else {
    int one = 1;
    setsockopt(chan, SOL_SOCKET, SO_SNDBUF, &one, sizeof one);
    fcntl(chan, F_SETFL, fcntl(chan, F_GETFL) | O_NONBLOCK);
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    struct pollfd p = {chan, POLLOUT, 0};
    int full = poll(&p, 1, 0) == 0;
    printf("child calls (buffer %s)\n", full ? "full" : "free");
    fflush(stdout);
    void* d = NULL;
    for (int i = 0; i < 100; i++) cudaMalloc(&d, 1 << 20);
    printf("the child made its calls\n");
    fflush(stdout);
    exit(0);
  }
  // The test reads the channel once the child waits for room (in ppoll,
  // as /proc/PID/syscall shows) or has ended: no clock.
  int st = 0, waited = 0;
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/syscall", (int)pid);
  while (pid > 0) {
    pid_t w = waitpid(pid, &st, WNOHANG);
    if (w == pid) { waited = 1; break; }
    if (w < 0) { printf("waitpid: %s\n", strerror(errno)); return 1; }
    char line[64] = {0};
    FILE* f = fopen(path, "re");
    if (f != NULL) { fgets(line, sizeof line, f); fclose(f); }
    if (atoi(line) == SYS_ppoll) break;
    sched_yield();
  }
  printf("child %s\n", waited ? "ended" : "waits");
  fflush(stdout);
  if (pid < 0) return 1;
  while (!waited && waitpid(pid, &st, 0) < 0) {
    if (errno != EINTR) { printf("waitpid: %s\n", strerror(errno)); return 1; }
  }
  printf("child %s %d\n", WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
  fflush(stdout);
  return 0;
}
