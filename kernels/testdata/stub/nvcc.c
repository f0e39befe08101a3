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

static struct { const void* host; const char* dev; } funcs[64];
void** __cudaRegisterFatBinary(void* f) { static void* h; return &h; }
void __cudaRegisterFatBinaryEnd(void** h) {}
void __cudaUnregisterFatBinary(void** h) {}
void __cudaRegisterFunction(void** h, const char* f, char* d, const char* n, int t, void* a, void* b, void* c, void* e, int* w) {
  for (int i = 0; i < 64; i++)
    if (funcs[i].host == 0) { funcs[i].host = f; funcs[i].dev = n; return; }
}
void __cudaRegisterVar(void** h, char* hv, char* dv, const char* n, int ext, size_t sz, int c, int g) {}
int cudaGetFuncBySymbol(void** f, const void* s) {
  for (int i = 0; i < 64; i++)
    if (funcs[i].host == s) { *f = (void*)funcs[i].dev; return 0; }
  return 1;
}
/* A launch's configuration, pushed by <<<...>>> and popped by the kernel's host stub. */
typedef struct { unsigned x, y, z; } dim3s;
static dim3s grid, block;
static size_t shared;
static void* stream;
unsigned __cudaPushCallConfiguration(dim3s g, dim3s b, size_t shm, void* s) { grid = g; block = b; shared = shm; stream = s; return 0; }
int __cudaPopCallConfiguration(dim3s* g, dim3s* b, size_t* shm, void** s) { *g = grid; *b = block; *shm = shared; *s = stream; return 0; }
int cudaHostAlloc(void** p, size_t n, unsigned f) { *p = calloc(1, n); return 0; }
const char* cudaGetErrorString(int e) { return "an error of the stand-in runtime"; }
int cudaMallocFromPoolAsync(void** p, size_t n, void* pool, void* s) { return take(p, n); }
