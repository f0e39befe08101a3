// Descriptors of shareable handles and a vfork's child (kernels/fail_test.go):
// the child, which shares the program's memory, closes its copy of the
// export's descriptor before it leaves; the program's own stays open to
// its exit and is counted. A signal handler closes a second export's
// descriptor (close takes no lock there): that one is not counted.
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
int cudaMemPoolExportToShareableHandle(void*, void*, int, unsigned);
static int b = -1;
static void onSignal(int sig) { (void)sig; close(b); }
int main() {
  int a = -1;
  cudaMemPoolExportToShareableHandle(&a, (void*)0x9000, 1, 0);
  pid_t pid = vfork();
  if (pid == 0) {
    close(a);
    _exit(0);
  }
  int status;
  waitpid(pid, &status, 0);
  cudaMemPoolExportToShareableHandle(&b, (void*)0x9000, 1, 0);
  signal(SIGUSR1, onSignal);
  raise(SIGUSR1);
  return 0;
}
