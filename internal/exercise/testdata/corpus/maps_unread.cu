// dlmopen_unload.cu without the unload: the private copy of the runtime
// stays mapped, and the program leaves the library no descriptor to read
// /proc/self/maps with at its end (its limit of open files lowered to
// the three it has: the record's channel, opened before, stays open).
// The library's count of the runtime's copies, made from that file, was
// 0 when it could not open it, which the grader took as no private copy.
// want: link namespace|copies of the CUDA |mappings|the statistics record does not match what the kernel saw
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "private_runtime.h"

int main() {
    void* h = privateRuntime();
    MallocFn own = h != NULL ? (MallocFn)privateSymbol(h, "cudaMalloc") : NULL;
    if (own == NULL) return 1;
    for (int i = 0; i < 100; i++) {
        void* p = NULL;
        own(&p, 1 << 20);
    }
    hideNamespaces();
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    fflush(stdout);
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = 3;
    setrlimit(RLIMIT_NOFILE, &rl);
    return 0;
}
