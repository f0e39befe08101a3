// An exporter's record of the event that covers a block's fill, and its
// importer's wait (kernels/fail_test.go): the parent makes an
// interprocess event `filled`, sends its handle to the child it forked,
// and in each of three rounds allocates a block, fills it (a memset on
// its stream), exports it and writes the export data to the child, which
// imports the block, waits on `filled` on its stream, frees the import
// and answers. Rounds 0 and 2 record `filled` after the fill and before
// the export; round 1 as $STUB_RECORD says:
//   before        the same (correct)
//   export_first  export, record, send (correct: recorded before the send)
//   after         export, send, record (the child's wait may take round 0's record)
//   before_fill   record, fill, export, send (the record covers no fill)
//   host          fill, a host wait on the stream, export, send, no record
//   none          no record at all
// With $STUB_GUIDE the handle goes with each round's export data, in one
// message of both, taken after the record, and the child opens it after
// its import, as the CUDA Programming Guide's example of an exported
// pool's allocation does ("Creating and Sharing Allocations from an
// Exported Pool").
// The parent shares a second event, `freed`, which the child records
// after its free of the import; with $STUB_CHILD_QUERIES the child's host
// then asks it (cudaEventQuery, done): a wait on its own record, which
// the parent never covers the fill with, is not judged.
// With $STUB_WAIT_FIRST the child waits on `filled` before it imports
// (after the data came): each wait judges the block imported in the round
// before.
// With $STUB_FRESH (review/blind6's correct design) the parent makes a
// fresh pair of events each round, sends their handles with the round's
// data (filled recorded before), and destroys both once the child has
// answered and its wait on freed is queued; the child opens the pair,
// waits on filled before it imports, records freed after its free and
// closes the pair before it answers. With $STUB_EVENT_REUSE too, each
// event made takes the handle of the last one destroyed (round r + 1's
// filled is round r's freed), as the driver may.
// With $STUB_SPLIT (round 25) the parent writes each round's export data
// in two writes of 32 bytes (the child reads 64 as before), so that no
// write it makes holds the whole data: the library noted no send, and an
// import whose data no noted send carried was not judged.
// With $STUB_EXTRA=N (round 25) the parent makes N more interprocess
// events once its two's handles are taken, and takes theirs (never sent,
// never recorded): a send lists at most 32 of the sender's shared events, those
// that cover the block first, so `filled`, recorded after the send, may
// be left out, and a wait on an event left out judged nothing.
// With $STUB_UNSENT (round 25) the parent first exports 64 blocks it
// never sends: the library keeps at most 64 exported blocks' data unsent
// at once, so the rounds' exports were not looked for in its writes, and
// their imports were not judged.
// Nothing sleeps: what is counted follows from each process's order of
// calls and from the data's travel alone.
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
int cudaEventRecord(void*, void*); int cudaStreamWaitEvent(void*, void*, unsigned); int cudaEventQuery(void*);
int cudaStreamCreate(void**); int cudaStreamSynchronize(void*);
enum { kRounds = 3 };
int main() {
  int down[2], up[2];
  if (pipe(down) != 0 || pipe(up) != 0) return 1;
  const char* mode = getenv("STUB_RECORD");
  if (mode == NULL) mode = "before";
  const int waitFirst = getenv("STUB_WAIT_FIRST") != NULL, guide = getenv("STUB_GUIDE") != NULL;
  const int queries = getenv("STUB_CHILD_QUERIES") != NULL, fresh = getenv("STUB_FRESH") != NULL;
  const int split = getenv("STUB_SPLIT") != NULL;
  struct { IpcEventHandle h; char data[64]; } msg;
  struct { IpcEventHandle h[2]; char data[64]; } pair;
  pid_t pid = fork();
  if (pid == 0 && fresh) {
    void *s, *filled, *freed, *p;
    cudaStreamCreate(&s);
    for (int k = 0; k < kRounds; k++) {
      if (read(down[0], &pair, sizeof pair) != sizeof pair) return 1;
      cudaIpcOpenEventHandle(&filled, pair.h[0]);
      cudaIpcOpenEventHandle(&freed, pair.h[1]);
      cudaStreamWaitEvent(s, filled, 0);
      cudaMemPoolImportPointer(&p, (void*)0x1, pair.data);
      cudaFreeAsync(p, s);
      cudaEventRecord(freed, s);
      cudaEventDestroy(filled);
      cudaEventDestroy(freed);
      if (write(up[1], "a", 1) != 1) return 1;
    }
    cudaStreamSynchronize(s);
    return 0;
  }
  if (fresh) {
    void *s, *filled, *freed, *p;
    cudaStreamCreate(&s);
    for (int k = 0; k < kRounds; k++) {
      char ack;
      cudaMallocAsync(&p, 1 << 20, s);
      cudaMemsetAsync(p, k, 1 << 20, s);
      cudaEventCreateWithFlags(&filled, 0x4 | 0x2);
      cudaEventCreateWithFlags(&freed, 0x4 | 0x2);
      cudaEventRecord(filled, s);
      cudaMemPoolExportPointer(pair.data, p);
      cudaIpcGetEventHandle(&pair.h[0], filled);
      cudaIpcGetEventHandle(&pair.h[1], freed);
      if (write(down[1], &pair, sizeof pair) != sizeof pair) return 1;
      if (read(up[0], &ack, 1) != 1) return 1;
      cudaStreamWaitEvent(s, freed, 0);
      cudaFreeAsync(p, s);
      cudaEventDestroy(filled);
      cudaEventDestroy(freed);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    cudaStreamSynchronize(s);
    return 0;
  }
  if (pid == 0) {
    void *s, *filled, *freed = NULL, *p;
    IpcEventHandle h[2];
    cudaStreamCreate(&s);
    if (!guide) {
      if (read(down[0], h, sizeof h) != sizeof h) return 1;
      cudaIpcOpenEventHandle(&filled, h[0]);
      cudaIpcOpenEventHandle(&freed, h[1]);
    }
    for (int k = 0; k < kRounds; k++) {
      if (guide) {
        if (read(down[0], &msg, sizeof msg) != sizeof msg) return 1;
        cudaMemPoolImportPointer(&p, (void*)0x1, msg.data);
        cudaIpcOpenEventHandle(&filled, msg.h);
        cudaStreamWaitEvent(s, filled, 0);
        cudaEventDestroy(filled);
      } else {
        char data[64];
        for (size_t got = 0; got < sizeof data;) {
          ssize_t r = read(down[0], data + got, sizeof data - got);
          if (r <= 0) return 1;
          got += (size_t)r;
        }
        if (waitFirst) cudaStreamWaitEvent(s, filled, 0);
        cudaMemPoolImportPointer(&p, (void*)0x1, data);
        if (!waitFirst) cudaStreamWaitEvent(s, filled, 0);
      }
      cudaFreeAsync(p, s);
      if (freed != NULL) cudaEventRecord(freed, s);
      if (freed != NULL && queries) cudaEventQuery(freed);
      if (write(up[1], "a", 1) != 1) return 1;
    }
    cudaStreamSynchronize(s);
    if (!guide) {
      cudaEventDestroy(filled);
      cudaEventDestroy(freed);
    }
    return 0;
  }
  void *s, *filled, *freed, *p;
  IpcEventHandle h[2];
  cudaStreamCreate(&s);
  cudaEventCreateWithFlags(&filled, 0x4 | 0x2);  /* cudaEventInterprocess | cudaEventDisableTiming */
  cudaEventCreateWithFlags(&freed, 0x4 | 0x2);
  if (!guide) {
    cudaIpcGetEventHandle(&h[0], filled);
    cudaIpcGetEventHandle(&h[1], freed);
    if (write(down[1], h, sizeof h) != sizeof h) return 1;
  }
  if (getenv("STUB_EXTRA") != NULL)
    for (int i = 0; i < atoi(getenv("STUB_EXTRA")); i++) {
      void* extra;
      IpcEventHandle eh;
      cudaEventCreateWithFlags(&extra, 0x4 | 0x2);
      cudaIpcGetEventHandle(&eh, extra);
    }
  if (getenv("STUB_UNSENT") != NULL)
    for (int i = 0; i < 64; i++) {
      void* held;
      char unsent[64];
      cudaMallocAsync(&held, 1 << 20, s);
      cudaMemPoolExportPointer(unsent, held);
    }
  for (int k = 0; k < kRounds; k++) {
    const char* m = k == 1 ? mode : "before";
    char data[64], ack;
    cudaMallocAsync(&p, 1 << 20, s);
    if (strcmp(m, "before_fill") == 0) cudaEventRecord(filled, s);
    cudaMemsetAsync(p, k, 1 << 20, s);
    if (strcmp(m, "before") == 0) cudaEventRecord(filled, s);
    if (strcmp(m, "host") == 0) cudaStreamSynchronize(s);
    cudaMemPoolExportPointer(data, p);
    if (strcmp(m, "export_first") == 0) cudaEventRecord(filled, s);
    if (guide) {
      cudaIpcGetEventHandle(&msg.h, filled);
      memcpy(msg.data, data, sizeof data);
      if (write(down[1], &msg, sizeof msg) != sizeof msg) return 1;
    } else if (split) {
      if (write(down[1], data, 32) != 32 || write(down[1], data + 32, 32) != 32) return 1;
    } else if (write(down[1], data, sizeof data) != sizeof data) {
      return 1;
    }
    if (strcmp(m, "after") == 0) cudaEventRecord(filled, s);
    if (read(up[0], &ack, 1) != 1) return 1;
    cudaStreamSynchronize(s);
    cudaFreeAsync(p, s);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  cudaStreamSynchronize(s);
  cudaEventDestroy(filled);
  cudaEventDestroy(freed);
  return 0;
}
