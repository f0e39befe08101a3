// A second CUDA runtime that was on the machine before the run (a Python
// wheel's libcudart, another toolkit's), loaded by dlopen beside the
// program's own: the work (a hundred cudaMalloc of 1 MiB, real ones on
// the GPU) done through its cudaMalloc, found in its own symbol table (a
// dlsym of the name gets the hook), and the copy unloaded (dlclose)
// before the end. The library counted the runtime's copies at its end
// only, and saw one; it now counts before every dlclose too. The file is
// named by OTHER_RUNTIME (the test finds one on the machine).
// want: copies of the CUDA runtime|the statistics record does not match what the kernel saw
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "private_runtime.h"

int main() {
    const char* path = getenv("OTHER_RUNTIME");
    void* h = path != NULL ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (h == NULL) {
        fprintf(stderr, "no other runtime: %s\n", path != NULL ? dlerror() : "OTHER_RUNTIME is not set");
        return 1;
    }
    MallocFn own = (MallocFn)privateSymbol(h, "cudaMalloc");
    if (own == NULL) return 1;
    int done = 0;
    for (int i = 0; i < 100; i++) {
        void* p = NULL;
        if (own(&p, 1 << 20) == cudaSuccess) done++;
    }
    printf("through %s: %d of 100\n", path, done);
    dlclose(h);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
