// A private copy of the CUDA runtime in a link namespace of its own
// (dlmopen with LM_ID_NEWLM: the preloaded statistics library is not in
// it, so nothing there is hooked) does the work, a hundred cudaMalloc
// found in the copy's own symbol table (dlsym's answer would be the
// hook), and is unloaded (dlclose) before the program ends; the
// loader's list of namespaces, which the library read at its end, is cut
// to the first (_r_debug's r_next, plain data). The library counted the
// copies of the runtime (in /proc/self/maps) and the namespaces at its
// end only: one of each, and one cudaMalloc.
// want: link namespace|copies of the CUDA |the statistics record does not match what the kernel saw
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "private_runtime.h"

int main() {
    void* h = privateRuntime();
    MallocFn own = h != NULL ? (MallocFn)privateSymbol(h, "cudaMalloc") : NULL;
    if (own == NULL) return 1;
    for (int i = 0; i < 100; i++) {
        void* p = NULL;
        own(&p, 1 << 20);
    }
    dlclose(h);
    hideNamespaces();
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
