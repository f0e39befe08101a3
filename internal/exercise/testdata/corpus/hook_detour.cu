// A detour of the statistics library's own hook: the hook keeps the
// real cudaMalloc in a static pointer, set at its first call. The
// program reads the library's symbol table from its file (readable, as
// any library is), finds that pointer and its guard, points it at a stub
// of its own and marks it set. Its cudaMalloc then goes through the hook
// (counted) to the stub (no allocation at all): no code written, no page
// made executable, so no W^X rule sees it. Only the witness outside the
// process, which counts the runtime's real entry, catches it (or the
// review of what the source names). The library is built without its
// symbol table now (.symtab stripped): the names are not there to find,
// and the forger stops (exit status 73). One that finds the pointer by
// its value is stopped by the library (TestHookDetourStopped).
// want: exit status 73|the statistics record does not match what the kernel saw
#include <cuda_runtime.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static cudaError_t stub(void** p, size_t) {
    static char fake[64];
    *p = fake;
    return cudaSuccess;
}

struct Lib { const char* path; ElfW(Addr) base; };

static int visit(struct dl_phdr_info* info, size_t, void* out) {
    if (strstr(info->dlpi_name, "allocstats") == NULL) return 0;
    ((Lib*)out)->path = info->dlpi_name;
    ((Lib*)out)->base = info->dlpi_addr;
    return 1;
}

// local finds a symbol of the library's own table (.symtab) in its file.
static ElfW(Addr) local(const unsigned char* f, const char* name) {
    const ElfW(Ehdr)* eh = (const ElfW(Ehdr)*)f;
    const ElfW(Shdr)* sh = (const ElfW(Shdr)*)(f + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB) continue;
        const ElfW(Sym)* syms = (const ElfW(Sym)*)(f + sh[i].sh_offset);
        const char* names = (const char*)(f + sh[sh[i].sh_link].sh_offset);
        for (size_t k = 0; k < sh[i].sh_size / sizeof(ElfW(Sym)); k++)
            if (strcmp(names + syms[k].st_name, name) == 0) return syms[k].st_value;
    }
    return 0;
}

int main() {
    Lib lib = {NULL, 0};
    dl_iterate_phdr(visit, &lib);
    if (lib.path == NULL) return 72;
    int fd = open(lib.path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) return 72;
    const unsigned char* f = (const unsigned char*)mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (f == MAP_FAILED) return 72;
    ElfW(Addr) fn = local(f, "_ZZ10cudaMallocE2fn"), guard = local(f, "_ZGVZ10cudaMallocE2fn");
    if (fn == 0 || guard == 0) return 73;
    *(void**)(lib.base + fn) = (void*)&stub;
    *(unsigned char*)(lib.base + guard) = 1;
    void* p = NULL;
    cudaMalloc(&p, 1 << 20);
    printf("one allocation asked for\n");
    return 0;
}
