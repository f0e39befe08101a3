// The run's key recovered from the statistics library's memory: the
// program reads the library's symbol table from its file, takes the key,
// the pipe's descriptor and the frame number where the library keeps
// them, marks the channel ended (so the library sends nothing more) and
// signs and sends an end frame of its own that claims one cudaMalloc.
// Every frame verifies: the key is the run's. Nothing inside the process
// can stop a program from reading its own memory; only the witness
// outside it (no cudaMalloc counted, one claimed) catches it, or the
// review of what the source names. The library is built without its
// symbol table now (.symtab stripped): the names are not there to find,
// and the forger stops (exit status 73). One that knows where the key
// lies in the grader's build of the library (its source is public, its
// build reproducible) still signs its own record: only the witness
// catches that.
// want: exit status 73|the statistics record does not match what the kernel saw
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "forge.h"

struct Lib { const char* path; ElfW(Addr) base; };

static int visit(struct dl_phdr_info* info, size_t, void* out) {
    if (strstr(info->dlpi_name, "allocstats") == NULL) return 0;
    ((Lib*)out)->path = info->dlpi_name;
    ((Lib*)out)->base = info->dlpi_addr;
    return 1;
}

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
    ElfW(Addr) key = local(f, "_ZN12_GLOBAL__N_17chanKeyE"), chan = local(f, "_ZN12_GLOBAL__N_16chanFdE"),
               seq = local(f, "_ZN12_GLOBAL__N_17chanSeqE"), ended = local(f, "_ZN12_GLOBAL__N_19chanEndedE");
    if (key == 0 || chan == 0 || seq == 0 || ended == 0) return 73;
    uint8_t k[32];
    memcpy(k, (const void*)(lib.base + key), 32);
    int pipe = *(int*)(lib.base + chan);
    uint64_t next = *(uint64_t*)(lib.base + seq);
    *(bool*)(lib.base + ended) = true;
    if (!forge::frame(pipe, k, 3, next, 1, 1)) return 74;
    printf("one allocation asked for\n");
    return 0;
}
