// copy_unload.cu past the library's hook of dlclose: the copy of the
// CUDA runtime's file, written into the run's folder, loaded by dlopen,
// does the work (a hundred cudaMalloc found in its own symbol table) and
// is unloaded by the C library's own dlclose, found in the C library's
// symbol table (a look-up by dlsym or dlvsym answers with the hook), so
// the library never counts the copies before the unload, and at its end
// sees one runtime and no code written during the run. Fails here all
// the same (round 18, driver 535, no GPU): the driver's own dlclose,
// made while the copy is mapped (its failed start), reaches the hook,
// which counts two copies. On two H200s with driver 580 (session 23)
// the C library's dlclose left the copy mapped (the driver still held
// it), and the run failed at its end with "the program ran code from a
// file written during its run" (the copy, deleted, mapped executable).
// in the sandbox's filter: exit status 71
// want: copies of the CUDA runtime|the statistics record does not match what the kernel saw|ran code from a file written during its run
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "private_runtime.h"

int main() {
    const char* names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so"};
    struct link_map* lm = NULL;
    for (const char* n : names) {
        void* h = dlopen(n, RTLD_NOW | RTLD_NOLOAD);
        if (h != NULL && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0) break;
        lm = NULL;
    }
    if (lm == NULL) return 1;
    FILE* in = fopen(lm->l_name, "rb");
    FILE* out = fopen("libcudart.so.private", "wb");
    if (in == NULL || out == NULL) return 1;
    char buf[1 << 16];
    for (size_t n; (n = fread(buf, 1, sizeof buf, in)) > 0;) fwrite(buf, 1, n, out);
    fclose(in);
    fclose(out);
    char path[4096];
    snprintf(path, sizeof path, "./libcudart.so.private");
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    // Refused where the run's folder is mounted noexec (the sandbox).
    if (h == NULL) return 71;
    MallocFn own = (MallocFn)privateSymbol(h, "cudaMalloc");
    if (own == NULL) return 1;
    for (int i = 0; i < 100; i++) {
        void* p = NULL;
        own(&p, 1 << 20);
    }
    // The C library's own dlclose, from its symbol table.
    void* libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    typedef int (*DlcloseFn)(void*);
    DlcloseFn own_dlclose = libc != NULL ? (DlcloseFn)privateSymbol(libc, "dlclose") : NULL;
    if (own_dlclose == NULL) return 1;
    own_dlclose(h);
    remove("libcudart.so.private");
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
