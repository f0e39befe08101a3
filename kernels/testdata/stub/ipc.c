// An importer of another process's pool (kernels/fail_test.go): three
// blocks imported and freed in stream order. The first free is followed
// by a record of an interprocess event (signalled); the second is freed
// after the record (not signalled); the third is followed only by a
// record of an ordinary event (not signalled either).
#include <stddef.h>
typedef struct { char reserved[64]; } IpcEventHandle;
int cudaMemPoolImportPointer(void**, void*, void*); int cudaFreeAsync(void*, void*);
int cudaIpcOpenEventHandle(void**, IpcEventHandle); int cudaEventCreate(void**);
int cudaEventRecord(void*, void*); int cudaStreamCreate(void**); int cudaStreamSynchronize(void*);
int main() {
  void *s, *freed, *plain, *p;
  char data[64] = {0};
  IpcEventHandle h = {{0}};
  cudaStreamCreate(&s); cudaIpcOpenEventHandle(&freed, h); cudaEventCreate(&plain);
  cudaMemPoolImportPointer(&p, (void*)0x1, data);
  cudaFreeAsync(p, s);
  cudaEventRecord(freed, s);
  cudaMemPoolImportPointer(&p, (void*)0x1, data);
  cudaEventRecord(freed, s);
  cudaFreeAsync(p, s);
  cudaMemPoolImportPointer(&p, (void*)0x1, data);
  cudaFreeAsync(p, s);
  cudaEventRecord(plain, s);
  cudaStreamSynchronize(s);
  return 0;
}
