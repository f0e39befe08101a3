// The control for driver_table.cu: the same hundred calls made at the
// driver's exported entries (found in its symbol table, so the
// statistics library's hook is not on the path), not behind them. The
// outside witness's probe on cuMemAlloc_v2 counts them, and a record
// that claims no driver call of its own may reach the driver's twin at
// most as often as the runtime's cudaMalloc was called.
// needs: witness
// want: the statistics record does not match what the kernel saw|dynamic loading|ELF
// forged when it prints: entry calls 100 succeeded 100
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "private_runtime.h"

typedef int (*AllocFn)(unsigned long long*, size_t);
typedef int (*FreeFn)(unsigned long long);

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (h == NULL) h = dlopen("libcuda.so.1", RTLD_NOW);
    AllocFn alloc = h != NULL ? (AllocFn)privateSymbol(h, "cuMemAlloc_v2") : NULL;
    FreeFn release = h != NULL ? (FreeFn)privateSymbol(h, "cuMemFree_v2") : NULL;
    int calls = 0, ok = 0, last = -1;
    for (int i = 0; alloc != NULL && i < 100; i++) {
        unsigned long long d = 0;
        last = alloc(&d, 1 << 20);
        calls++;
        if (last == 0) {
            ok++;
            if (release != NULL) release(d);
        }
    }
    printf("entry calls %d succeeded %d (last answer %d)\n", calls, ok, last);
    printf("one allocation asked for\n");
    return 0;
}
