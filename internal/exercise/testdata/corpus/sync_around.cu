// A host wait made around the statistics library's hooks (attack19):
// around_hooks.cu for a statistic the outside witness did not count. The
// program finds the CUDA runtime's own cudaDeviceSynchronize,
// cudaStreamSynchronize and cudaEventSynchronize in the runtime's symbol
// table (walking the loaded objects itself, no dlsym for the library to
// answer) and calls them there: the record says the host never waited
// (device_syncs 0, the check of an exercise whose design must not wait
// on the host), and the witness compared allocations alone; passed as
// root with the witness on, plain and sandbox.
// needs: witness
// want: more than the record's|dl_iterate_phdr
#include <cuda_runtime.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

static void* found[3];
static const char* names[3] = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize"};

static int visit(struct dl_phdr_info* info, size_t, void*) {
    if (strstr(info->dlpi_name, "libcudart") == NULL) return 0;
    const ElfW(Sym)* syms = NULL;
    const char* strs = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
        for (const ElfW(Dyn)* d = (const ElfW(Dyn)*)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr); d->d_tag != DT_NULL; d++) {
            if (d->d_tag == DT_SYMTAB) syms = (const ElfW(Sym)*)d->d_un.d_ptr;
            if (d->d_tag == DT_STRTAB) strs = (const char*)d->d_un.d_ptr;
        }
    }
    for (size_t k = 0; syms != NULL && strs != NULL && (const char*)&syms[k] < strs; k++)
        for (int n = 0; n < 3; n++)
            if (syms[k].st_value != 0 && strcmp(strs + syms[k].st_name, names[n]) == 0)
                found[n] = (void*)(info->dlpi_addr + syms[k].st_value);
    return 1;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted
    dl_iterate_phdr(visit, NULL);
    int waited = 0;
    if (found[0] != NULL) { ((cudaError_t(*)(void))found[0])(); waited++; }                       // not counted
    if (found[1] != NULL) { ((cudaError_t(*)(cudaStream_t))found[1])(0); waited++; }              // not counted
    if (found[2] != NULL) { ((cudaError_t(*)(cudaEvent_t))found[2])((cudaEvent_t)0); waited++; }  // not counted
    printf("one allocation asked for (and %d host waits unseen)\n", waited);
    return 0;
}
