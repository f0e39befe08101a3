// The stand-in runtime (cudart.c) for a program nvcc built with -cudart
// shared (kernels/harness_test.go): the calls nvcc's host code makes to
// register and launch kernels, and those of the course's harnesses. A
// kernel is known by its device name (what cudaGetFuncBySymbol hands the
// library, and driver.c reads its parameters from); it never runs, and
// every event and stream answers done, as on a GPU that finished
// everything before the host looked.
#define STUB_KERNELS
#include "cudart.c"
#include <stdlib.h>
#include <string.h>

static struct { const void* host; const char* dev; } funcs[64];
void** __cudaRegisterFatBinary(void* f) { static void* h; return &h; }
void __cudaRegisterFatBinaryEnd(void** h) {}
void __cudaUnregisterFatBinary(void** h) {}
void __cudaRegisterFunction(void** h, const char* f, char* d, const char* n, int t, void* a, void* b, void* c, void* e, int* w) {
  for (int i = 0; i < 64; i++)
    if (funcs[i].host == 0) { funcs[i].host = f; funcs[i].dev = n; return; }
}
/* A device variable (__device__) is known by its host shadow's address, and
   given a device address of its own, apart from every allocation's. */
static struct { const void* host; uintptr_t dev; size_t n; } vars[64];
static uintptr_t nextVar = 0x6f0000000000;
void __cudaRegisterVar(void** h, char* hv, char* dv, const char* n, int ext, size_t sz, int c, int g) {
  for (int i = 0; i < 64; i++)
    if (vars[i].host == 0) { vars[i].host = hv; vars[i].dev = nextVar; vars[i].n = sz; nextVar += (sz + 0xff) & ~(uintptr_t)0xff; return; }
}
int cudaGetSymbolAddress(void** p, const void* s) {
  for (int i = 0; i < 64; i++)
    if (vars[i].host != 0 && vars[i].host == s) { *p = (void*)vars[i].dev; return 0; }
  return 13;  /* cudaErrorInvalidSymbol */
}
int cudaGetSymbolSize(size_t* n, const void* s) {
  for (int i = 0; i < 64; i++)
    if (vars[i].host != 0 && vars[i].host == s) { *n = vars[i].n; return 0; }
  return 13;
}
int cudaGetFuncBySymbol(void** f, const void* s) {
  for (int i = 0; i < 64; i++)
    if (funcs[i].host == s) { *f = (void*)funcs[i].dev; return 0; }
  return 1;
}
/* A launch's configuration, pushed by <<<...>>> and popped by the kernel's host stub. */
typedef StubDim3 dim3s;
static dim3s grid, block;
static size_t shared;
static void* stream;
unsigned __cudaPushCallConfiguration(dim3s g, dim3s b, size_t shm, void* s) { grid = g; block = b; shared = shm; stream = s; return 0; }
int __cudaPopCallConfiguration(dim3s* g, dim3s* b, size_t* shm, void** s) { *g = grid; *b = block; *shm = shared; *s = stream; return 0; }
int cudaHostAlloc(void** p, size_t n, unsigned f) { *p = calloc(1, n); return 0; }
int cudaMallocHost(void** p, size_t n) { *p = calloc(1, n); return 0; }
/* Unified addressing: a mapped host allocation's device pointer is its host address. */
int cudaHostGetDevicePointer(void** d, void* h, unsigned f) { *d = h; return 0; }
const char* cudaGetErrorString(int e) { return "an error of the stand-in runtime"; }
/* No pointer is known to the stand-in: a harness's check of its pinned buffers says no. */
int cudaPointerGetAttributes(void* a, const void* p) { return 1; }
int cudaMallocFromPoolAsync(void** p, size_t n, void* pool, void* s) { return take(p, n); }
/* A launch: on a stream being captured, a kernel node of the capture's
   graph, its arguments copied as the driver describes them. */
int cuFuncGetParamInfo(void* h, size_t i, size_t* off, size_t* size);
/* A launch with an empty grid or block fails, as the runtime's does
   (cudaErrorInvalidConfiguration, 9), and is the thread's last error until
   cudaGetLastError reads it (graph-alloc's sums on a grid rounded down to
   0 at 1 MiB: review/blind27). */
static int lastError;
int cudaGetLastError(void) { int e = lastError; lastError = 0; return e; }
int cudaPeekAtLastError(void) { return lastError; }
int cudaLaunchKernel(const void* f, dim3s g, dim3s b, void** args, size_t shm, void* s) {
  if (g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.y == 0 || b.z == 0) return lastError = 9;
  if (!captured(s)) return 0;
  void* node;
  struct StubNode* x = addNode(&node, capGraph, 0);
  if (x == 0) return 0;
  capLink(x, s);
  x->k.func = (void*)f; x->k.grid = g; x->k.block = b; x->k.shared = (unsigned)shm; x->k.params = x->args;
  void* dev = 0;
  size_t off, size;
  if (cudaGetFuncBySymbol(&dev, f) != 0) return 0;
  for (size_t i = 0; i < 8 && cuFuncGetParamInfo(dev, i, &off, &size) == 0 && off + size <= sizeof x->argData; i++) {
    memcpy(x->argData + off, args[i], size);
    x->args[i] = x->argData + off;
  }
  return 0;
}
