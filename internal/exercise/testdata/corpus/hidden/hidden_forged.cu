// Round 24: partial credit and hidden runs. The public run is honest (one
// cudaMalloc); each hidden run (its name in argv[1]) does what every
// layer of the judge catches there, and the catch is a result that is no
// check of the spec's: "statistics recorded by the library" (spawned: a
// program started, so the record is not trusted), "statistics match what
// the kernel saw" (around: a hundred calls of the runtime's own cudaMalloc
// around the hooks, the witness on), "ends by itself" (late: it prints and
// then runs past its time limit). A public run's such result leaves the
// attempt no points (Spec.Score); RunAll gave a hidden run's a check of
// its own, with no points, and Score took it for one of the spec's: the
// attempt scored every point, 25 of 25, its hidden checks passed on the
// record it was not trusted with (and as root with the witness on).
#include <cuda_runtime.h>
#include <elf.h>
#include <link.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef cudaError_t (*MallocFn)(void**, size_t);
static MallocFn found;

static int visit(struct dl_phdr_info* info, size_t, void*) {
    if (strstr(info->dlpi_name, "libcudart") == NULL) return 0;
    const ElfW(Sym)* syms = NULL;
    const char* names = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
        for (const ElfW(Dyn)* d = (const ElfW(Dyn)*)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr); d->d_tag != DT_NULL; d++) {
            if (d->d_tag == DT_SYMTAB) syms = (const ElfW(Sym)*)d->d_un.d_ptr;
            if (d->d_tag == DT_STRTAB) names = (const char*)d->d_un.d_ptr;
        }
    }
    for (size_t k = 0; syms != NULL && names != NULL && (const char*)&syms[k] < names; k++)
        if (syms[k].st_value != 0 && strcmp(names + syms[k].st_name, "cudaMalloc") == 0) {
            found = (MallocFn)(info->dlpi_addr + syms[k].st_value);
            return 1;
        }
    return 0;
}

int main(int argc, char** argv) {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted
    const char* run = argc > 1 ? argv[1] : "";
    if (strcmp(run, "spawned") == 0) {
        // Refused by the library's filter, counted before: the record
        // is not trusted.
        pid_t pid;
        char* args[] = {(char*)"true", NULL};
        posix_spawnp(&pid, "true", NULL, NULL, args, NULL);
    }
    if (strcmp(run, "around") == 0) {
        dl_iterate_phdr(visit, NULL);
        for (int i = 0; found != NULL && i < 100; i++)
            if (found(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // not counted
    }
    printf("one allocation asked for\n");
    fflush(stdout);
    if (strcmp(run, "late") == 0) sleep(30);
    return 0;
}
