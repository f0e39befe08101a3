// The CUDA runtime that a system library carries in its own code (round
// 23, open): NVIDIA's libraries (cuBLAS, cuFFT, cuRAND, cuSOLVER,
// cuSPARSE, NPP, nvJPEG) are linked with the static runtime, a whole
// copy of it (in this machine's CUDA 11.8 each holds some 3,500 of
// libcudart's 16-byte blocks at one distance over 195 KiB), under a name
// that is no runtime's. The program loads one by dlopen (NPP's core, the
// smallest, first) and calls that copy's own cudaMalloc a hundred times:
// not exported, it is found by its bytes (libcudart's cudaMalloc read
// from the runtime's file, its calls' displacements left out of the
// match, one place alone). The witness probes the files named libcudart*
// and libcuda.so* alone (`witness.Copies`, by name), and the statistics
// library hooks the runtime the program links; the copy keeps its own
// state. With a GPU its calls start a context of its own and reach the
// driver's entry points, which it looks up through cuGetProcAddress: the
// statistics library answers a look-up made from outside NVIDIA's own
// libraries with its hooks (libnppc is no runtime's or driver's by name),
// so the record should count the copy's allocations as driver calls of
// the program's, and the witness's driver probes count them too: whether
// either fails it is for the GPU run (not run). Here (CUDA 11.8, driver 535, no device) it forges
// nothing: the copy's start asks the driver for cuGetProcAddress through
// cuGetProcAddress (CUDA 11's four arguments), the statistics library
// hands it the hook of cuGetProcAddress_v2 (five), and the driver's write
// of the fifth ends the program by SIGSEGV; without the library it runs
// the copy's hundred calls. With that hook mended (tried, not kept: a
// look-up of cuGetProcAddress for a version below 12000 left as the
// driver answered it) it passed as root with the witness on, plain and
// sandbox (fake GPU, 1 of 101 counted).
// forged when it prints: ran the runtime of
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef cudaError_t (*MallocFn)(void**, size_t);

static struct dl_phdr_info rt, carrier;
static const char* want;

static int find(struct dl_phdr_info* info, size_t, void*) {
    const char* b = strrchr(info->dlpi_name, '/');
    if (b == NULL) return 0;
    if (want == NULL && strncmp(b + 1, "libcudart", 9) == 0) rt = *info;
    if (want != NULL && strncmp(b + 1, want, strlen(want)) == 0) carrier = *info;
    return 0;
}

// fileOffset is the offset in the file of the address at, or -1.
static long fileOffset(const struct dl_phdr_info* in, uintptr_t at) {
    for (int i = 0; i < in->dlpi_phnum; i++) {
        const ElfW(Phdr)* ph = &in->dlpi_phdr[i];
        uintptr_t lo = in->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && at >= lo && at < lo + ph->p_filesz) return (long)(at - lo + ph->p_offset);
    }
    return -1;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted by both
    dl_iterate_phdr(find, NULL);
    // The runtime's own cudaMalloc: its dynamic symbol, read from memory
    // (the program's reference is the hook), its bytes from the file (the
    // live code holds the witness's breakpoints).
    void* h = dlopen(rt.dlpi_name, RTLD_NOW | RTLD_NOLOAD);
    Dl_info di;
    void* real = NULL;
    const ElfW(Dyn)* d = NULL;
    for (int i = 0; i < rt.dlpi_phnum; i++)
        if (rt.dlpi_phdr[i].p_type == PT_DYNAMIC) d = (const ElfW(Dyn)*)(rt.dlpi_addr + rt.dlpi_phdr[i].p_vaddr);
    const ElfW(Sym)* sym = NULL;
    const char* str = NULL;
    size_t strsz = 0;
    for (; d != NULL && d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_SYMTAB) sym = (const ElfW(Sym)*)d->d_un.d_ptr;
        if (d->d_tag == DT_STRTAB) str = (const char*)d->d_un.d_ptr;
        if (d->d_tag == DT_STRSZ) strsz = d->d_un.d_val;
    }
    // The symbol table ends where the string table starts (GNU ld's order).
    for (const ElfW(Sym)* s = sym; sym != NULL && str != NULL && (const char*)s < str; s++)
        if (s->st_name < strsz && s->st_value != 0 && strcmp(str + s->st_name, "cudaMalloc") == 0) real = (void*)(rt.dlpi_addr + s->st_value);
    unsigned char code[96];
    long off = real != NULL ? fileOffset(&rt, (uintptr_t)real) : -1;
    FILE* f = off >= 0 ? fopen(rt.dlpi_name, "rb") : NULL;
    int ok = h != NULL && f != NULL && fseek(f, off, SEEK_SET) == 0 && fread(code, 1, sizeof code, f) == sizeof code;
    if (f != NULL) fclose(f);
    (void)di;
    // Its calls' displacements differ in a copy linked elsewhere.
    unsigned char mask[sizeof code];
    memset(mask, 1, sizeof mask);
    for (size_t i = 0; i + 5 <= sizeof code; i++)
        if (code[i] == 0xe8) memset(mask + i + 1, 0, 4);
    static const char* carriers[] = {"libnppc.so", "libcurand.so", "libnvjpeg.so", "libcufft.so", "libcublas.so", NULL};
    static const char* dirs[] = {"", "/usr/local/cuda/lib64/", "/usr/lib/x86_64-linux-gnu/", NULL};
    static const char* versions[] = {".13", ".12", ".11", ".10", "", NULL};
    MallocFn copy = NULL;
    for (int c = 0; ok && copy == NULL && carriers[c] != NULL; c++)
        for (int dd = 0; copy == NULL && dirs[dd] != NULL; dd++)
            for (int v = 0; copy == NULL && versions[v] != NULL; v++) {
                char name[256];
                snprintf(name, sizeof name, "%s%s%s", dirs[dd], carriers[c], versions[v]);
                if (dlopen(name, RTLD_NOW) == NULL) continue;
                want = carriers[c];
                carrier.dlpi_phnum = 0;
                dl_iterate_phdr(find, NULL);
                for (int i = 0; copy == NULL && i < carrier.dlpi_phnum; i++) {
                    const ElfW(Phdr)* ph = &carrier.dlpi_phdr[i];
                    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
                    const unsigned char* lo = (const unsigned char*)(carrier.dlpi_addr + ph->p_vaddr);
                    const unsigned char* found = NULL;
                    int n = 0;
                    for (size_t j = 0; j + sizeof code <= ph->p_filesz; j++) {
                        size_t k = 0;
                        while (k < sizeof code && (!mask[k] || lo[j + k] == code[k])) k++;
                        if (k == sizeof code) found = lo + j, n++;
                    }
                    if (n == 1) copy = (MallocFn)found;
                }
                if (copy != NULL) {
                    for (int i = 0; i < 100; i++) {
                        void* dd2 = NULL;
                        copy(&dd2, 1 << 20);
                    }
                    printf("ran the runtime of %s for 100 calls\n", name);
                }
            }
    printf("one allocation asked for\n");
    return 0;
}
