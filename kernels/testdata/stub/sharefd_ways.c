// Descriptors of shareable handles closed and copied other ways than close
// (kernels/fail_test.go). Every export here names /dev/null, as every
// export on the GPU names /dev/nvidiactl: the first is closed by
// close_range, the second by syscall(SYS_close), the third by dup2 of
// another descriptor onto it, the fourth and fifth by one close_range over
// both, and /dev/null is opened again at each freed number. The sixth is
// copied by dup and the seventh by fcntl(F_DUPFD_CLOEXEC), and only the
// originals are closed: the two copies are left open at exit. A close of
// -1 first (a descriptor never opened) forgets nothing.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>
int cudaMemPoolExportToShareableHandle(void*, void*, int, unsigned);
static int export(void) {
  int fd = -1;
  cudaMemPoolExportToShareableHandle(&fd, (void*)0x9000, 1, 0);
  return fd;
}
int main() {
  int a = export();
  close(-1);
  close_range(a, a, 0);
  int again = open("/dev/null", O_RDONLY);
  int b = export();
  syscall(SYS_close, b);
  int again2 = open("/dev/null", O_RDONLY);
  int c = export();
  dup2(again, c);
  int d = export(), e = export();
  close_range(d < e ? d : e, d < e ? e : d, 0);
  int again3 = open("/dev/null", O_RDONLY), again4 = open("/dev/null", O_RDONLY);
  int f = export();
  int copy = dup(f);
  close(f);
  int g = export();
  int copy2 = fcntl(g, F_DUPFD_CLOEXEC, 50);
  close(g);
  printf("%d %d %d %d %d %d %d %d %d %d %d %d %d\n", a, again, b, again2, c, d, e, again3, again4, f, copy, g, copy2);
  return 0;
}
