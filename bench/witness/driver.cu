// witness3's probe of a program that calls the driver's allocation
// functions itself (through dlopen, as a course program may): the record
// counts them as their runtime twins, and the witness compares those as a
// range up to the driver's counts.
#include <cstdio>
#include <dlfcn.h>
#include <cuda_runtime.h>
typedef unsigned long long dptr;
int main() {
    void* p;
    cudaMalloc(&p, 4096); cudaFree(p);  // the context, and one runtime call
    void* drv = dlopen("libcuda.so.1", RTLD_NOW);
    if (!drv) { printf("no driver\n"); return 1; }
    auto alloc = (int (*)(dptr*, size_t))dlsym(drv, "cuMemAlloc_v2");
    auto release = (int (*)(dptr))dlsym(drv, "cuMemFree_v2");
    auto allocAsync = (int (*)(dptr*, size_t, void*))dlsym(drv, "cuMemAllocAsync");
    auto freeAsync = (int (*)(dptr, void*))dlsym(drv, "cuMemFreeAsync");
    for (int i = 0; i < 3; i++) { dptr d; alloc(&d, 1 << 20); release(d); }
    for (int i = 0; i < 2; i++) { dptr d; allocAsync(&d, 1 << 20, nullptr); freeAsync(d, nullptr); }
    cudaDeviceSynchronize();
    printf("done\n");
    return 0;
}
