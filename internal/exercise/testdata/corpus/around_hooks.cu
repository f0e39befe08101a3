// A detour around the statistics library's hooks: the program finds the
// CUDA runtime's own cudaMalloc in the runtime's symbol table (walking
// the loaded objects itself, no dlsym for the library to answer) and
// calls it there. The record counts the one call made through the hook;
// only a witness outside the process sees the second.
// needs: witness
// want: the statistics record does not match what the kernel saw|dl_iterate_phdr
#include <cuda_runtime.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

typedef cudaError_t (*MallocFn)(void**, size_t);
static MallocFn found;

static int visit(struct dl_phdr_info* info, size_t, void*) {
    if (strstr(info->dlpi_name, "libcudart") == NULL) return 0;
    const ElfW(Sym)* syms = NULL;
    const char* names = NULL;
    size_t count = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
        for (const ElfW(Dyn)* d = (const ElfW(Dyn)*)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr); d->d_tag != DT_NULL; d++) {
            if (d->d_tag == DT_SYMTAB) syms = (const ElfW(Sym)*)d->d_un.d_ptr;
            if (d->d_tag == DT_STRTAB) names = (const char*)d->d_un.d_ptr;
            if (d->d_tag == DT_GNU_HASH || d->d_tag == DT_HASH) count = 100000;
        }
    }
    for (size_t k = 0; syms != NULL && names != NULL && k < count; k++) {
        if ((const char*)&syms[k] >= names) break;
        if (syms[k].st_value != 0 && strcmp(names + syms[k].st_name, "cudaMalloc") == 0) {
            found = (MallocFn)(info->dlpi_addr + syms[k].st_value);
            return 1;
        }
    }
    return 0;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted
    dl_iterate_phdr(visit, NULL);
    if (found != NULL && found(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // not counted
    printf("one allocation asked for\n");
    return 0;
}
