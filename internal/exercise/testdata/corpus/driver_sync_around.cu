// sync_around.cu at the driver's entries (attack19): the driver loaded
// (dlopen of the machine's libcuda, no copy), its own cuCtxSynchronize,
// cuStreamSynchronize and cuEventSynchronize found in its symbol table
// (walking the loaded objects, no dlsym for the library to answer) and
// called there: the record says the host never waited. Where it passes
// (attack19, no GPU): as root with the witness on, plain and sandbox,
// after sync_around.cu's fix (the witness probes and bounds the runtime's
// three entries, not the driver's), and wherever the witness is off (the
// scan names dl_iterate_phdr and the dynamic loading). Round 20
// (attack20): the witness probes the driver's three waits (entries, the
// functions behind them, their ways out) and, with
// the bound (LESSONS_WITNESS_DRIVER_WAITS=bound then, the default now), bounds each by the record's
// statistic as the runtime's are: it fails then ("calls of the driver's
// cuCtxSynchronize within the record's device_syncs",
// TestWitnessBoundsDriverWaits). By default since session 25: that bound
// is right only where each of the runtime's waits reaches the driver's
// function at most once and nothing else of the runtime reaches it, and
// on two H200s (driver 580) verify --wrong of the whole course with the
// bound on failed no answer by it; it was in corpus-open until then.
// want: more than the record's|dynamic loading
// needs: witness
#include <cuda_runtime.h>
#include <elf.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

static void* found[3];
static const char* names[3] = {"cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize"};

static int visit(struct dl_phdr_info* info, size_t, void*) {
    if (strstr(info->dlpi_name, "libcuda.so") == NULL) return 0;
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
    dlopen("libcuda.so.1", RTLD_NOW);  // the driver itself, not a copy
    dl_iterate_phdr(visit, NULL);
    int waited = 0;
    if (found[0] != NULL) { ((int(*)(void))found[0])(); waited++; }                       // not counted
    if (found[1] != NULL) { ((int(*)(void*))found[1])(0); waited++; }              // not counted
    if (found[2] != NULL) { ((int(*)(void*))found[2])(0); waited++; }  // not counted
    printf("one allocation asked for (and %d host waits unseen)\n", waited);
    return 0;
}
