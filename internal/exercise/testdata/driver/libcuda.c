/* A stand-in CUDA driver (libcuda.so.1) for tests without a GPU: the
   allocation entry points the outside witness probes, answering
   success with addresses of its own. */
#include <stddef.h>

typedef unsigned long long CUdeviceptr;
static unsigned long long next = 0x10000000ULL;

int cuInit(unsigned int flags) { (void)flags; return 0; }
/* Its own calls never go through its exported names (which the library
   preloaded would interpose, and count twice). */
static int take(CUdeviceptr* p, size_t n) { *p = next; next += (n + 4095) & ~4095ULL; return 0; }
int cuMemAlloc_v2(CUdeviceptr* p, size_t n) { return take(p, n); }
int cuMemFree_v2(CUdeviceptr p) { (void)p; return 0; }
int cuMemAllocAsync(CUdeviceptr* p, size_t n, void* s) { (void)s; return take(p, n); }
int cuMemFreeAsync(CUdeviceptr p, void* s) { (void)p; (void)s; return 0; }
/* An array: a handle, no address (counted as cuMemAlloc is). */
int cuArrayCreate_v2(void** a, const void* d) { (void)d; *a = (void*)(next += 4096); return 0; }
int cuArrayDestroy(void* a) { (void)a; return 0; }
