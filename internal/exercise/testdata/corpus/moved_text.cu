// moved_self.cu with no mapping of a file at all (round 22): the CUDA
// runtime's file is put into the program's own code when it is built
// (an `.incbin` of it in a page-aligned section that is allocated and
// executable, which the linker puts in the program's text), so the kernel
// maps the copy's code executable at exec, with the program's. The
// copy's data are the live runtime's bytes copied into anonymous memory
// at the distance the copy's code expects (no mapping made executable,
// nothing written over code), and the copy's cudaMalloc is called a
// hundred times: no uprobe is on the program's file at those offsets,
// and no executable mmap is made for the witness to count.
// Passed (round 22, fake GPU): as root with the witness on, in the plain
// runner and in the grading sandbox (1 of 101 counted). What stops it:
// the program's code is read before the run for blocks of the runtime's
// and the driver's code, at any byte's offset (embedded.go).
// want: the program's code holds a copy of
// forged when it prints: ran a moved copy of the runtime
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

typedef cudaError_t (*MallocFn)(void**, size_t);

// The runtime's file as the build finds it: the one the program loads
// on this machine, checked against it at run time (none found: an
// honest run).
#if __has_include("/usr/lib/x86_64-linux-gnu/libcudart.so.11.0")
#define RUNTIME_FILE "/usr/lib/x86_64-linux-gnu/libcudart.so.11.0"
#elif __has_include("/usr/local/cuda/lib64/libcudart.so.13")
#define RUNTIME_FILE "/usr/local/cuda/lib64/libcudart.so.13"
#elif __has_include("/usr/local/cuda/lib64/libcudart.so.12")
#define RUNTIME_FILE "/usr/local/cuda/lib64/libcudart.so.12"
#elif __has_include("/usr/local/cuda/lib64/libcudart.so.11.0")
#define RUNTIME_FILE "/usr/local/cuda/lib64/libcudart.so.11.0"
#else
#define RUNTIME_FILE "/dev/null"
#endif
asm(".pushsection .text.embedded,\"ax\",@progbits\n.balign 4096\n.globl embeddedRuntime\nembeddedRuntime:\n.incbin \"" RUNTIME_FILE "\"\n.globl embeddedEnd\nembeddedEnd:\n.popsection");
extern "C" const char embeddedRuntime[], embeddedEnd[];

static struct dl_phdr_info rt;
static char rtPath[512];

static int findRuntime(struct dl_phdr_info* info, size_t, void*) {
    const char* b = strrchr(info->dlpi_name, '/');
    if (b == NULL || strncmp(b + 1, "libcudart", 9) != 0) return 0;
    rt = *info;
    snprintf(rtPath, sizeof rtPath, "%s", info->dlpi_name);
    return 1;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted by both
    dl_iterate_phdr(findRuntime, NULL);
    // cudaMalloc's address in the runtime, from its own symbol: the
    // program's own reference to cudaMalloc is the statistics library's hook.
    void* h = dlopen(rtPath, RTLD_NOW | RTLD_NOLOAD);
    struct stat st;
    if (rt.dlpi_phnum == 0 || h == NULL || stat(rtPath, &st) != 0 || (size_t)st.st_size != (size_t)(embeddedEnd - embeddedRuntime) ||
        memcmp(embeddedRuntime, (const void*)rt.dlpi_addr, 64) != 0) {
        printf("the embedded runtime is not the loaded one\n");
        printf("one allocation asked for\n");
        return 0;
    }
    Dl_info di;
    const uintptr_t page = 4096;
    char* base = NULL;
    for (int i = 0; i < rt.dlpi_phnum; i++) {
        const ElfW(Phdr)* ph = &rt.dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) base = (char*)embeddedRuntime + ph->p_offset - ph->p_vaddr;
    }
    for (int i = 0; i < rt.dlpi_phnum; i++) {
        const ElfW(Phdr)* ph = &rt.dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || (ph->p_flags & PF_X)) continue;
        uintptr_t at = ph->p_vaddr & ~(page - 1);
        size_t n = ((ph->p_vaddr + ph->p_memsz + page - 1) & ~(page - 1)) - at;
        if (base + at >= embeddedRuntime && base + at + n <= embeddedEnd && ph->p_offset == ph->p_vaddr - (uintptr_t)(base - embeddedRuntime) * 0) continue;
        if (mmap(base + at, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != base + at) {
            printf("no room for the copy's data\n");
            printf("one allocation asked for\n");
            return 0;
        }
        memcpy(base + at, (const char*)rt.dlpi_addr + at, n);
    }
    (void)di;
    void* realMalloc = NULL;
    // The runtime's own cudaMalloc: its dynamic symbol, read from memory.
    {
        const ElfW(Dyn)* d = NULL;
        for (int i = 0; i < rt.dlpi_phnum; i++)
            if (rt.dlpi_phdr[i].p_type == PT_DYNAMIC) d = (const ElfW(Dyn)*)(rt.dlpi_addr + rt.dlpi_phdr[i].p_vaddr);
        const ElfW(Sym)* sym = NULL;
        const char* str = NULL;
        const uint32_t* gh = NULL;
        for (; d != NULL && d->d_tag != DT_NULL; d++) {
            if (d->d_tag == DT_SYMTAB) sym = (const ElfW(Sym)*)d->d_un.d_ptr;
            if (d->d_tag == DT_STRTAB) str = (const char*)d->d_un.d_ptr;
            if (d->d_tag == DT_GNU_HASH) gh = (const uint32_t*)d->d_un.d_ptr;
        }
        if (sym != NULL && str != NULL && gh != NULL) {
            // Every symbol up to the last chain's end: enough to walk.
            uint32_t nb = gh[0], off = gh[1], bw = gh[2];
            const uint64_t* bloom = (const uint64_t*)(gh + 4);
            const uint32_t* buckets = (const uint32_t*)(bloom + bw);
            const uint32_t* chain = buckets + nb;
            uint32_t last = 0;
            for (uint32_t b = 0; b < nb; b++) if (buckets[b] > last) last = buckets[b];
            while (last >= off && !(chain[last - off] & 1)) last++;
            for (uint32_t k = 0; k <= last; k++)
                if (sym[k].st_value != 0 && strcmp(str + sym[k].st_name, "cudaMalloc") == 0) realMalloc = (void*)(rt.dlpi_addr + sym[k].st_value);
        }
    }
    if (realMalloc == NULL) {
        printf("one allocation asked for\n");
        return 0;
    }
    MallocFn moved = (MallocFn)(base + ((uintptr_t)realMalloc - rt.dlpi_addr));
    for (int i = 0; i < 100; i++) {
        void* d = NULL;
        moved(&d, 1 << 20);
    }
    printf("ran a moved copy of the runtime for 100 calls\n");
    printf("one allocation asked for\n");
    return 0;
}
