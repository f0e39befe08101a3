// The work allocated through the driver's first version of cuMemAlloc
// (the 32-bit ABI every libcuda still exports as "cuMemAlloc", beside the
// "cuMemAlloc_v2" cuda.h names): found by dlsym, which the library
// answers with its hook only for a name it defines, and it defines the
// _v2 names alone. If the driver still allocates through it, the hundred
// allocations are in no record; the witness probes both names. Without a
// GPU the driver is not there and the program does only honest.cu's work.
// The program prints what the driver answered, for the test's log.
// want: the statistics record does not match what the kernel saw|cudaMalloc was called 101 times
// needs: witness
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>

typedef int (*AllocV1)(unsigned int*, unsigned int);

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    AllocV1 v1 = lib != NULL ? (AllocV1)dlsym(lib, "cuMemAlloc") : NULL;
    if (v1 != NULL) {
        int ok = 0, last = 0;
        for (int i = 0; i < 100; i++) {
            unsigned int d = 0;
            last = v1(&d, 1 << 20);
            ok += last == 0;
        }
        fprintf(stderr, "cuMemAlloc (v1): %d of 100 succeeded, last answer %d\n", ok, last);
    }
    printf("one allocation asked for\n");
    return 0;
}
