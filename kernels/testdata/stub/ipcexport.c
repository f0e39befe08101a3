// An exporter and the child it forked (kernels/fail_test.go): the parent
// exports three blocks, one a round; the child imports each, frees it in
// stream order, records an interprocess event and answers over a pipe.
// The parent frees the first block before its stream waits for the event
// (early), the second after its stream's wait (ordered), the third after
// a host wait on the event (ordered); a fourth it exports and frees, and
// nobody imports: not judged.
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
typedef struct { char reserved[64]; } IpcEventHandle;
int cudaMallocAsync(void**, size_t, void*); int cudaFreeAsync(void*, void*);
int cudaMemPoolExportPointer(void*, void*); int cudaMemPoolImportPointer(void**, void*, void*);
int cudaEventCreateWithFlags(void**, unsigned); int cudaIpcOpenEventHandle(void**, IpcEventHandle);
int cudaEventRecord(void*, void*); int cudaStreamWaitEvent(void*, void*, unsigned); int cudaEventSynchronize(void*);
int cudaStreamCreate(void**); int cudaStreamSynchronize(void*);
int main() {
  int down[2], up[2];
  if (pipe(down) != 0 || pipe(up) != 0) return 1;
  pid_t pid = fork();
  if (pid == 0) {
    void *s, *freed, *p;
    IpcEventHandle h = {{0}};
    cudaStreamCreate(&s);
    cudaIpcOpenEventHandle(&freed, h);
    for (int k = 0; k < 3; k++) {
      char data[64];
      if (read(down[0], data, sizeof data) != sizeof data) return 1;
      cudaMemPoolImportPointer(&p, (void*)0x1, data);
      cudaFreeAsync(p, s);
      cudaEventRecord(freed, s);
      if (write(up[1], "a", 1) != 1) return 1;
    }
    cudaStreamSynchronize(s);
    return 0;
  }
  void *s, *freed, *p;
  cudaStreamCreate(&s);
  cudaEventCreateWithFlags(&freed, 0x4 | 0x2);  /* cudaEventInterprocess | cudaEventDisableTiming */
  for (int k = 0; k < 4; k++) {
    char data[64], ack;
    memset(data, 'A' + k, sizeof data);
    cudaMallocAsync(&p, 1 << 20, s);
    cudaMemPoolExportPointer(data, p);
    if (k == 3) {  /* never sent */
      cudaFreeAsync(p, s);
      break;
    }
    if (write(down[1], data, sizeof data) != sizeof data || read(up[0], &ack, 1) != 1) return 1;
    if (k == 0) {
      cudaFreeAsync(p, s);
      cudaStreamWaitEvent(s, freed, 0);
    } else if (k == 1) {
      cudaStreamWaitEvent(s, freed, 0);
      cudaFreeAsync(p, s);
    } else {
      cudaEventSynchronize(freed);
      cudaFreeAsync(p, s);
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  cudaStreamSynchronize(s);
  return 0;
}
