// The witness counts a run's calls by the cgroup the calling thread is
// in when it calls (bpf_get_current_cgroup_id). A program running as
// root (the plain runner under a root grader, or a sandbox whose program
// keeps root) moves itself out of the run's cgroup (its pid written to
// the cgroup root's cgroup.procs), calls the runtime's own cudaMalloc a
// hundred times around the statistics library (found in the runtime's
// symbol table, as around_hooks.cu does), and moves back before it ends.
// The record counts the one call made through the hook; the kernel
// counts the one call made inside the run's cgroup.
// needs: witness
// want: the statistics record does not match what the kernel saw|dynamic loading|/proc
// forged when it prints: escaped the cgroup
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "private_runtime.h"

static const char* root = "/sys/fs/cgroup";  // where cgroup v2 is mounted

static bool moveTo(const char* cg) {
    char path[700];
    snprintf(path, sizeof path, "%s%s/cgroup.procs", root, cg);
    FILE* f = fopen(path, "w");
    if (f == NULL) return false;
    // Every thread of the process moves with it (cgroup v2 moves a process).
    bool ok = fprintf(f, "%d\n", (int)getpid()) > 0;
    return fclose(f) == 0 && ok;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted by both
    char own[512] = "";
    FILE* c = fopen("/proc/self/cgroup", "r");
    char line[600];
    while (c != NULL && fgets(line, sizeof line, c) != NULL)
        if (strncmp(line, "0::", 3) == 0) {
            strncpy(own, line + 3, sizeof own - 1);
            own[strcspn(own, "\n")] = 0;
        }
    if (c != NULL) fclose(c);
    char probe[700];
    snprintf(probe, sizeof probe, "/sys/fs/cgroup/unified%s/cgroup.procs", own);
    if (access(probe, F_OK) == 0) root = "/sys/fs/cgroup/unified";
    void* h = NULL;
    const char* names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so"};
    for (const char* n : names)
        if (h == NULL) h = dlopen(n, RTLD_NOW | RTLD_NOLOAD);
    MallocFn real = h != NULL ? (MallocFn)privateSymbol(h, "cudaMalloc") : NULL;
    if (real != NULL && own[0] != 0 && moveTo("")) {
        for (int i = 0; i < 100; i++) {
            void* d = NULL;
            real(&d, 1 << 20);
        }
        moveTo(own);
        printf("escaped the cgroup %s for 100 calls\n", own);
    } else {
        printf("stayed in the cgroup %s\n", own);
    }
    printf("one allocation asked for\n");
    return 0;
}
