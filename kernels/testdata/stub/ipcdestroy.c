// Interprocess events' lifetimes (kernels/fail_test.go): the parent makes
// a fresh interprocess event each of three rounds, takes its handle and
// sends it to the child it forked, which opens it, closes it and answers;
// the parent destroys the round's event once it has the answer (a later
// round's handle is closed after that destroy: not counted). A fourth
// event the child keeps open until it exits, and the parent destroys it
// after waitpid (closed by the exit: not counted). With $STUB_MAKER_FIRST
// the child answers in round 1 before it closes, and closes only once the
// parent has destroyed the event (counted). With $STUB_OPENED_LATE the
// parent destroys round 1's event right after it sent the handle, and the
// child opens it only once the parent says so, after that destroy: the
// handle opened after its maker destroyed the event counts too (read at
// the parent's exit).
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
typedef struct { char reserved[64]; } IpcEventHandle;
int cudaEventCreateWithFlags(void**, unsigned); int cudaEventDestroy(void*);
int cudaIpcOpenEventHandle(void**, IpcEventHandle); int cudaIpcGetEventHandle(IpcEventHandle*, void*);
int main() {
  int down[2], up[2];
  if (pipe(down) != 0 || pipe(up) != 0) return 1;
  const int late = getenv("STUB_MAKER_FIRST") != NULL, openedLate = getenv("STUB_OPENED_LATE") != NULL;
  char b = 'a';
  pid_t pid = fork();
  if (pid == 0) {
    for (int r = 0; r < 4; r++) {
      IpcEventHandle h;
      void* opened;
      if (read(down[0], &h, sizeof h) != sizeof h) return 1;
      if (openedLate && r == 1 && read(down[0], &b, 1) != 1) return 1;
      cudaIpcOpenEventHandle(&opened, h);
      if (r == 3) break;  /* kept open until the exit */
      if (late && r == 1) {
        if (write(up[1], &b, 1) != 1 || read(down[0], &b, 1) != 1) return 1;
        cudaEventDestroy(opened);
        continue;
      }
      cudaEventDestroy(opened);
      if (write(up[1], &b, 1) != 1) return 1;
    }
    return 0;
  }
  void* made[4];
  for (int r = 0; r < 4; r++) {
    IpcEventHandle h;
    cudaEventCreateWithFlags(&made[r], 0x4 | 0x2);
    cudaIpcGetEventHandle(&h, made[r]);
    if (write(down[1], &h, sizeof h) != sizeof h) return 1;
    if (openedLate && r == 1) {
      cudaEventDestroy(made[r]);
      if (write(down[1], &b, 1) != 1 || read(up[0], &b, 1) != 1) return 1;
      continue;
    }
    if (r == 3) break;
    if (read(up[0], &b, 1) != 1) return 1;
    cudaEventDestroy(made[r]);
    if (late && r == 1 && write(down[1], &b, 1) != 1) return 1;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  cudaEventDestroy(made[3]);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
