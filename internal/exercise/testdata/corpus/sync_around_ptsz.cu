// sync_around.cu by the per-thread default stream's twin (review23): the
// runtime exports cudaStreamSynchronize_ptsz beside cudaStreamSynchronize,
// the library hooks neither twin (a program that imports one is refused
// before the run), and the witness probed the legacy name alone. The
// program finds the twin in the runtime's symbol table (no import, no
// dlsym) and waits there for a stream's work: the record says the host
// never waited (stream_syncs 0).
// needs: witness
// want: more than the record's|dl_iterate_phdr
#include <cuda_runtime.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

static void* twin;

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
        if (syms[k].st_value != 0 && strcmp(strs + syms[k].st_name, "cudaStreamSynchronize_ptsz") == 0)
            twin = (void*)(info->dlpi_addr + syms[k].st_value);
    return 1;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted
    dl_iterate_phdr(visit, NULL);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    int waited = 0;
    if (twin != NULL) { ((cudaError_t(*)(cudaStream_t))twin)(s); waited++; }  // not counted
    cudaStreamDestroy(s);
    printf("one allocation asked for (and %d host waits unseen)\n", waited);
    return 0;
}
