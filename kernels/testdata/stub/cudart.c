// A stand-in for libcudart on a machine without a GPU (kernels/timeline_test.go):
// every call succeeds; allocations hand out fake addresses (never through
// another exported name, which the library would count), streams and
// events fake handles.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
static uintptr_t next = 0x10000000, handles = 0x1000;
static int take(void** p, size_t n) { *p = (void*)next; next += (n + 0xfff) & ~0xfffUL; return 0; }
int cudaMalloc(void** p, size_t n) { return take(p, n); }
int cudaMallocAsync(void** p, size_t n, void* s) { return take(p, n); }
int cudaFree(void* p) { return 0; }
int cudaFreeAsync(void* p, void* s) { return 0; }
int cudaStreamCreate(void** s) { *s = (void*)(handles++); return 0; }
int cudaStreamCreateWithFlags(void** s, unsigned f) { *s = (void*)(handles++); return 0; }
int cudaEventCreate(void** e) { *e = (void*)(handles++); return 0; }
int cudaEventCreateWithFlags(void** e, unsigned f) { *e = (void*)(handles++); return 0; }
#define OK(name) int name() { return 0; }
/* $STUB_SYNC_ERROR: what cudaDeviceSynchronize returns (a kernel's fault, 700). */
int cudaDeviceSynchronize(void) { const char* e = getenv("STUB_SYNC_ERROR"); return e ? atoi(e) : 0; }
OK(cudaEventRecord) OK(cudaStreamWaitEvent) OK(cudaStreamSynchronize)
OK(cudaEventSynchronize) OK(cudaEventQuery) OK(cudaStreamQuery) OK(cudaEventDestroy) OK(cudaStreamDestroy)
OK(cudaMemcpyAsync) OK(cudaMemsetAsync) OK(cudaMemcpy) OK(cudaMemset) OK(cudaGetDevice)
OK(cudaDeviceGetMemPool) OK(cudaMemPoolGetAttribute) OK(cudaMemPoolSetAttribute) OK(cudaMemPoolTrimTo)
OK(cudaStreamIsCapturing) OK(cudaThreadExchangeStreamCaptureMode) OK(cudaGetLastError) OK(cudaPeekAtLastError)
OK(cudaEventElapsedTime) OK(cudaLaunchKernel) OK(__cudaLaunchKernel) OK(cudaDeviceReset) OK(cudaDeviceGraphMemTrim)
int cudaGetFuncBySymbol(void** f, const void* s) { return 1; }
static size_t heap = 8 << 20;  /* the device heap: cudaLimitMallocHeapSize is 2 */
int cudaDeviceSetLimit(int l, size_t v) { if (l == 2) heap = v; return 0; }
int cudaDeviceGetLimit(size_t* v, int l) { *v = l == 2 ? heap : 0; return 0; }
int cudaMemPoolImportPointer(void** p, void* pool, void* data) { return take(p, 1 << 20); }
typedef struct { char reserved[64]; } IpcEventHandle;
int cudaIpcOpenEventHandle(void** e, IpcEventHandle h) { *e = (void*)(handles++); return 0; }
