// copy_unload.cu with the copy of the runtime's file named otherwise
// (libnvprivate.so: a name of NVIDIA's, so that the statistics library
// answers its look-ups of the driver with the driver's own functions, as
// it answers the runtime's) and left loaded: the statistics library knows a
// runtime's copies by their file's name, and the outside witness probes
// the runtime's files that were on the machine before the run, not one
// the program wrote during it. Passed where the program may map a file
// it wrote executable (the plain runner; the grading sandbox without a
// mount namespace of its own), with full points, even as root with the
// witness on. The library now fails a run with an executable mapping of a
// file written during it (at its end and before every dlclose: its mtime
// or ctime at or after the run's start, or the file deleted); in the
// sandbox with its mount namespace, dlopen is refused (exit status 71).
// in the sandbox's filter: exit status 71
// want: the program ran code from a file written during its run|exit status 71
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
    FILE* out = fopen("libnvprivate.so", "wb");
    if (in == NULL || out == NULL) return 1;
    char buf[1 << 16];
    for (size_t n; (n = fread(buf, 1, sizeof buf, in)) > 0;) fwrite(buf, 1, n, out);
    fclose(in);
    fclose(out);
    char path[4096];
    snprintf(path, sizeof path, "./libnvprivate.so");
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    // Refused where the run's folder is mounted noexec (the sandbox).
    if (h == NULL) return 71;
    MallocFn own = (MallocFn)privateSymbol(h, "cudaMalloc");
    if (own == NULL) return 1;
    for (int i = 0; i < 100; i++) {
        void* p = NULL;
        own(&p, 1 << 20);
    }
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
