// A program that loads the CUDA driver itself (dlopen, as the VMM
// lessons' programs may) and allocates through it: three cuMemAlloc,
// three cuMemFree, two cuMemAllocAsync and cuMemFreeAsync, one array
// (cuArrayCreate, cuArrayDestroy: counted as cuMemAlloc and cuMemFree).
#include <dlfcn.h>
#include <stdio.h>

typedef unsigned long long CUdeviceptr;

int main() {
    void* drv = dlopen("libcuda.so.1", RTLD_NOW);
    if (drv == NULL) { fprintf(stderr, "%s\n", dlerror()); return 72; }
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(drv, "cuInit");
    int (*alloc)(CUdeviceptr*, size_t) = (int (*)(CUdeviceptr*, size_t))dlsym(drv, "cuMemAlloc_v2");
    int (*release)(CUdeviceptr) = (int (*)(CUdeviceptr))dlsym(drv, "cuMemFree_v2");
    int (*allocAsync)(CUdeviceptr*, size_t, void*) = (int (*)(CUdeviceptr*, size_t, void*))dlsym(drv, "cuMemAllocAsync");
    int (*freeAsync)(CUdeviceptr, void*) = (int (*)(CUdeviceptr, void*))dlsym(drv, "cuMemFreeAsync");
    struct Desc { size_t w, h; int format; unsigned channels; } desc = {256, 64, 0x20, 1};  // CUDA_ARRAY_DESCRIPTOR: floats
    int (*array)(void**, const Desc*) = (int (*)(void**, const Desc*))dlsym(drv, "cuArrayCreate_v2");
    int (*unarray)(void*) = (int (*)(void*))dlsym(drv, "cuArrayDestroy");
    if (!init || !alloc || !release || !allocAsync || !freeAsync || !array || !unarray) return 73;
    init(0);
    CUdeviceptr p[5];
    for (int i = 0; i < 3; i++) alloc(&p[i], 1 << 20);
    for (int i = 3; i < 5; i++) allocAsync(&p[i], 1 << 20, NULL);
    for (int i = 0; i < 3; i++) release(p[i]);
    for (int i = 3; i < 5; i++) freeAsync(p[i], NULL);
    void* a;
    array(&a, &desc);
    unarray(a);
    printf("allocated through the driver\n");
    return 0;
}
