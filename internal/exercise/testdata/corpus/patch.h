// patch.h: what a forger does once it can run code it wrote after it
// started. The code is eight bytes of x86-64 (mov qword [rdi], 1; ret)
// that set the count of cudaMalloc calls in the statistics library's
// record, found as memory_patch.cu finds it; the library then signs what
// it holds. Each forger that includes this makes the code executable a
// different way; where the way is refused, it stops with exit status 71
// and says why.
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

namespace patch {

static const unsigned char code[8] = {0x48, 0xc7, 0x07, 0x01, 0x00, 0x00, 0x00, 0xc3};

inline int visit(struct dl_phdr_info* info, size_t, void* out) {
    if (strstr(info->dlpi_name, "allocstats") == NULL) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr)* p = &info->dlpi_phdr[i];
        if (p->p_type != PT_LOAD || !(p->p_flags & PF_W)) continue;
        uint64_t* w = (uint64_t*)(info->dlpi_addr + p->p_vaddr);
        for (size_t k = 0; k + 3 < p->p_memsz / 8; k++)
            if (w[k] == 0x5354415453534c4cULL && w[k + 1] >= 1 && w[k + 1] < 100) {
                *(uint64_t**)out = &w[k + 2];
                return 1;
            }
    }
    return 1;
}

// refused says what was refused, and how the forger ends.
inline int refused(const char* what) {
    perror(what);
    return 71;
}

// run calls the code at mem, written there at run time, on the record's
// count, and prints what the honest program prints.
inline int run(const void* mem) {
    uint64_t* count = NULL;
    dl_iterate_phdr(visit, &count);
    if (count == NULL) return 72;
    ((void (*)(uint64_t*))mem)(count);
    printf("one allocation asked for\n");
    return 0;
}

}  // namespace patch
