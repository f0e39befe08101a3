// An exporter that frees each block on a second stream of its own,
// behind the importer's event (kernels/fail_test.go; review/blind11's
// ipc-pool correct design): the parent makes two interprocess events,
// `filled` and `freed`, and sends their handles to the child it forked;
// each of three rounds it allocates a block on s, fills it (a memset on
// s), records `filled` on s and sends the export data; the child imports
// the block, waits on `filled`, frees the import, records `freed` and
// answers; the parent's second stream, back, waits on `freed` and frees
// the block there. The free is ordered after the fill through the
// child's stream. With $STUB_BACK:
//   nowait_child  the child's stream does not wait on `filled`: its
//                 record of `freed` covers nothing of the parent's
//   nowait        back does not wait on `freed`
// the free on back may run beside the fill (unordered_frees).
// Nothing sleeps: what is counted follows from each process's order of
// calls and from the messages' travel alone.
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
typedef struct { char reserved[64]; } IpcEventHandle;
int cudaMallocAsync(void**, size_t, void*); int cudaFreeAsync(void*, void*);
int cudaMemsetAsync(void*, int, size_t, void*);
int cudaMemPoolExportPointer(void*, void*); int cudaMemPoolImportPointer(void**, void*, void*);
int cudaEventCreateWithFlags(void**, unsigned); int cudaEventDestroy(void*);
int cudaIpcOpenEventHandle(void**, IpcEventHandle); int cudaIpcGetEventHandle(IpcEventHandle*, void*);
int cudaEventRecord(void*, void*); int cudaStreamWaitEvent(void*, void*, unsigned);
int cudaStreamCreate(void**); int cudaStreamSynchronize(void*);
enum { kRounds = 3 };
int main() {
  int down[2], up[2];
  if (pipe(down) != 0 || pipe(up) != 0) return 1;
  const char* mode = getenv("STUB_BACK");
  if (mode == NULL) mode = "";
  pid_t pid = fork();
  if (pid == 0) {
    void *s, *filled, *freed, *p;
    IpcEventHandle h[2];
    cudaStreamCreate(&s);
    if (read(down[0], h, sizeof h) != sizeof h) return 1;
    cudaIpcOpenEventHandle(&filled, h[0]);
    cudaIpcOpenEventHandle(&freed, h[1]);
    for (int k = 0; k < kRounds; k++) {
      char data[64];
      if (read(down[0], data, sizeof data) != sizeof data) return 1;
      cudaMemPoolImportPointer(&p, (void*)0x1, data);
      if (strcmp(mode, "nowait_child") != 0) cudaStreamWaitEvent(s, filled, 0);
      cudaFreeAsync(p, s);
      cudaEventRecord(freed, s);
      if (write(up[1], "a", 1) != 1) return 1;
    }
    cudaStreamSynchronize(s);
    cudaEventDestroy(filled);
    cudaEventDestroy(freed);
    return 0;
  }
  void *s, *back, *filled, *freed, *p;
  IpcEventHandle h[2];
  cudaStreamCreate(&s);
  cudaStreamCreate(&back);
  cudaEventCreateWithFlags(&filled, 0x4 | 0x2);  /* cudaEventInterprocess | cudaEventDisableTiming */
  cudaEventCreateWithFlags(&freed, 0x4 | 0x2);
  cudaIpcGetEventHandle(&h[0], filled);
  cudaIpcGetEventHandle(&h[1], freed);
  if (write(down[1], h, sizeof h) != sizeof h) return 1;
  for (int k = 0; k < kRounds; k++) {
    char data[64], ack;
    memset(data, 'A' + k, sizeof data);
    cudaMallocAsync(&p, 1 << 20, s);
    cudaMemsetAsync(p, k, 1 << 20, s);
    cudaEventRecord(filled, s);
    cudaMemPoolExportPointer(data, p);
    if (write(down[1], data, sizeof data) != sizeof data) return 1;
    if (read(up[0], &ack, 1) != 1) return 1;
    if (strcmp(mode, "nowait") != 0) cudaStreamWaitEvent(back, freed, 0);
    cudaFreeAsync(p, back);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  cudaStreamSynchronize(back);
  cudaStreamSynchronize(s);
  cudaEventDestroy(filled);
  cudaEventDestroy(freed);
  return 0;
}
