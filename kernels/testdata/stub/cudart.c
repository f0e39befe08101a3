// A stand-in for libcudart on a machine without a GPU (kernels/timeline_test.go):
// every call succeeds; allocations hand out fake addresses (never through
// another exported name, which the library would count), streams and
// events fake handles. Its pool reserves in steps of 8 MiB and gives
// memory back at a host wait or a trim (a release threshold of 0); its
// events' elapsed times grow with their handles, so the kernels it
// "runs" have a start and an end.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
static uintptr_t next = 0x10000000, handles = 0x1000;
static size_t used, reserved;
static struct { uintptr_t p; size_t n; } blocks[64];
static size_t up(size_t n) { return (n + (8u << 20) - 1) & ~(size_t)((8u << 20) - 1); }
static int take(void** p, size_t n) {
  *p = (void*)next;
  for (int i = 0; i < 64; i++) if (blocks[i].p == 0) { blocks[i].p = next; blocks[i].n = n; break; }
  next += (n + 0xfff) & ~0xfffUL;
  used += n;
  if (up(used) > reserved) reserved = up(used);
  return 0;
}
static int give(void* p) {
  for (int i = 0; i < 64; i++) if (blocks[i].p == (uintptr_t)p) { used -= blocks[i].n; blocks[i].p = 0; }
  return 0;
}
static int release(void) { reserved = up(used); return 0; }
// inCall, when the program sets it, runs inside cudaMalloc: what another
// of the program's threads could do while the call is made, between the
// library's look at the channel and its write (fork_race.c).
void (*stubInCall)(void);
int cudaMalloc(void** p, size_t n) {
  if (stubInCall != NULL) stubInCall();
  return take(p, n);
}
int cudaMallocAsync(void** p, size_t n, void* s) { return take(p, n); }
int cudaFree(void* p) { return give(p); }
int cudaMallocHost(void** p, size_t n) { return take(p, n); }
int cudaFreeHost(void* p) { return give(p); }
int cudaFreeAsync(void* p, void* s) { return give(p); }
int cudaStreamCreate(void** s) { *s = (void*)(handles++); return 0; }
int cudaStreamCreateWithFlags(void** s, unsigned f) { *s = (void*)(handles++); return 0; }
int cudaEventCreate(void** e) { *e = (void*)(handles++); return 0; }
int cudaEventCreateWithFlags(void** e, unsigned f) { *e = (void*)(handles++); return 0; }
// With STUB_RAISE_IN_POOL set, the first call raises SIGUSR1: the library
// asks for the device's pool in its own call into CUDA, so the program's
// handler runs inside it (kernels/fail_test.go, handler.c).
int cudaDeviceGetMemPool(void** pool, int dev) {
  static int raised;
  if (!raised && getenv("STUB_RAISE_IN_POOL")) { raised = 1; raise(SIGUSR1); }
  *pool = (void*)0x9000;
  return 0;
}
int cudaDeviceGetAttribute(int* v, int attr, int dev) { *v = 1; return 0; }
int cudaDriverGetVersion(int* v) { *v = 13000; return 0; }
int cudaMemPoolCreate(void** pool, const void* props) { *pool = (void*)(handles++); return 0; }
int cudaMemPoolDestroy(void* pool) { return 0; }
static int poolAttribute(int attr, void* v) {
  if (attr >= 1 && attr <= 3) { *(int*)v = 0; return 0; }  /* the reuse policies: int attributes */
  *(uint64_t*)v = attr == 5 || attr == 6 ? reserved : attr == 7 || attr == 8 ? used : 0;
  return 0;
}
int cudaMemPoolGetAttribute(void* pool, int attr, void* v) { return poolAttribute(attr, v); }
// The driver's, which the library asks for the pool's figures as it goes
// (the same attributes, numbered alike).
int cuMemPoolGetAttribute(void* pool, int attr, void* v) { return poolAttribute(attr, v); }
int cudaEventElapsedTime(float* ms, void* a, void* b) {
  *ms = (uintptr_t)b > (uintptr_t)a ? 0.004f * (float)((uintptr_t)b - (uintptr_t)a) : 0;
  return 0;
}
/* $STUB_SYNC_ERROR: what cudaDeviceSynchronize returns (a kernel's fault, 700). */
int cudaDeviceSynchronize(void) { const char* e = getenv("STUB_SYNC_ERROR"); release(); return e ? atoi(e) : 0; }
int cudaStreamSynchronize(void* s) { return release(); }
int cudaMemPoolTrimTo(void* pool, size_t keep) { return release(); }
/* A pool exported as a POSIX descriptor (handle type 1): a new descriptor of /dev/null. */
int cudaMemPoolExportToShareableHandle(void* h, void* pool, int t, unsigned f) { *(int*)h = open("/dev/null", O_RDONLY); return *(int*)h < 0; }
int cudaMemPoolImportFromShareableHandle(void** pool, void* h, int t, unsigned f) { *pool = (void*)0x9100; return 0; }
#define OK(name) int name() { return 0; }
OK(cudaEventRecord) OK(cudaEventRecordWithFlags) OK(cudaStreamWaitEvent)
OK(cudaEventSynchronize) OK(cudaEventQuery) OK(cudaStreamQuery) OK(cudaEventDestroy) OK(cudaStreamDestroy)
OK(cudaMemcpyAsync) OK(cudaMemsetAsync) OK(cudaMemcpy2DAsync) OK(cudaMemset2DAsync) OK(cudaMemcpy) OK(cudaMemset) OK(cudaGetDevice) OK(cudaSetDevice)
OK(cudaMemPoolSetAttribute) OK(cudaHostRegister) OK(cudaHostUnregister) OK(cudaMemPoolExportPointer)
OK(cudaStreamIsCapturing) OK(cudaThreadExchangeStreamCaptureMode) OK(cudaGetLastError) OK(cudaPeekAtLastError)
OK(cudaLaunchKernel) OK(__cudaLaunchKernel) OK(cudaLaunchKernelExC) OK(cudaLaunchCooperativeKernel) OK(cudaDeviceReset) OK(cudaDeviceGraphMemTrim)
#ifndef STUB_KERNELS  /* nvcc.c knows the program's kernels */
int cudaGetFuncBySymbol(void** f, const void* s) { return 1; }
#endif
static size_t heap = 8 << 20;  /* the device heap: cudaLimitMallocHeapSize is 2 */
int cudaDeviceSetLimit(int l, size_t v) { if (l == 2) heap = v; return 0; }
int cudaDeviceGetLimit(size_t* v, int l) { *v = l == 2 ? heap : 0; return 0; }
int cudaMemPoolImportPointer(void** p, void* pool, void* data) { return take(p, 1 << 20); }
typedef struct { char reserved[64]; } IpcEventHandle;
int cudaIpcOpenEventHandle(void** e, IpcEventHandle h) { *e = (void*)(handles++); return 0; }
int cudaIpcGetEventHandle(IpcEventHandle* h, void* e) { memset(h, 0, sizeof *h); memcpy(h->reserved, &e, sizeof e); return 0; }  /* one handle an event */
/* Graphs with no nodes: an executable graph is a fake handle. */
int cudaGraphCreate(void** g, unsigned f) { *g = (void*)(handles++); return 0; }
int cudaGraphInstantiate(void** e, void* g, void* a, void* b, size_t c) { *e = (void*)(handles++); return 0; }
int cudaGraphInstantiateWithFlags(void** e, void* g, unsigned long long f) { *e = (void*)(handles++); return 0; }
int cudaGraphGetNodes(void* g, void** nodes, size_t* n) { *n = 0; return 0; }
OK(cudaGraphLaunch) OK(cudaGraphExecDestroy) OK(cudaGraphDestroy) OK(cudaGraphNodeGetType) OK(cudaGraphChildGraphNodeGetGraph)
