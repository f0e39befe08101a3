// Interprocess events' lifetimes (kernels/fail_test.go): one event made
// with cudaEventInterprocess and one opened from a handle, in one process
// standing for both sides; $STUB_MAKER_FIRST destroys the made one first
// (the maker before the opener: counted), else the opened one first.
#include <stdlib.h>
typedef struct { char reserved[64]; } IpcEventHandle;
int cudaEventCreateWithFlags(void**, unsigned); int cudaEventDestroy(void*);
int cudaIpcOpenEventHandle(void**, IpcEventHandle);
int main() {
  void *made, *opened;
  IpcEventHandle h = {{0}};
  cudaEventCreateWithFlags(&made, 0x4 | 0x2);
  cudaIpcOpenEventHandle(&opened, h);
  if (getenv("STUB_MAKER_FIRST")) {
    cudaEventDestroy(made);
    cudaEventDestroy(opened);
  } else {
    cudaEventDestroy(opened);
    cudaEventDestroy(made);
  }
  return 0;
}
