// dlmopen_unload.cu without dlclose, which the library now watches: the
// private copy of the runtime in its namespace of its own does the work
// (a hundred cudaMalloc), then the first page (its ELF header) of the
// copy and of the namespace's C library is unmapped with munmap, so that
// their mappings no longer start at the file's start, where the library's
// count looked for them in /proc/self/maps; the loader's list is cut to
// the first namespace. The copy's code and data stay mapped and are never
// used again. The library counted one runtime, one C library, one
// namespace (passed wherever the witness was off); it now counts a file's
// executable mappings, which a copy that ran keeps (the loader calls its
// destructors at exit).
// want: link namespace|copies of the CUDA |the statistics record does not match what the kernel saw
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "private_runtime.h"

// unmapHeaders unmaps the first page of lm's mapping at its file's
// start (its ELF header): the rest of that mapping now starts at another
// offset of the file.
static void unmapHeaders(struct link_map* lm) {
    munmap((void*)lm->l_addr, 4096);  // a shared object's first segment starts at 0
}

int main() {
    void* h = privateRuntime();
    MallocFn own = h != NULL ? (MallocFn)privateSymbol(h, "cudaMalloc") : NULL;
    if (own == NULL) return 1;
    for (int i = 0; i < 100; i++) {
        void* p = NULL;
        own(&p, 1 << 20);
    }
    struct link_map* lm = NULL;
    dlinfo(h, RTLD_DI_LINKMAP, &lm);
    while (lm->l_prev != NULL) lm = lm->l_prev;
    struct link_map* all[64];
    int n = 0;
    for (; lm != NULL && n < 64; lm = lm->l_next)
        if (lm->l_name != NULL && (strstr(lm->l_name, "/libcudart") != NULL || strstr(lm->l_name, "/libc.so") != NULL)) all[n++] = lm;
    for (int i = 0; i < n; i++) unmapHeaders(all[i]);
    hideNamespaces();
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
