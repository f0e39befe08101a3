// The record patched in memory: the program finds the statistics library
// among the loaded objects, looks through its writable memory for the
// record (its magic word) and raises the count of cudaMalloc calls; the
// library then signs what it holds. Nothing inside the process can stop
// this (the program's code may read and write all of its memory): only a
// witness outside the process, which counted no call, or the review of
// what the source names (dl_iterate_phdr), catches it.
// needs: witness
// want: the statistics record does not match what the kernel saw|dl_iterate_phdr
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int patch(struct dl_phdr_info* info, size_t, void*) {
    if (strstr(info->dlpi_name, "allocstats") == NULL) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr)* p = &info->dlpi_phdr[i];
        if (p->p_type != PT_LOAD || !(p->p_flags & PF_W)) continue;
        uint64_t* w = (uint64_t*)(info->dlpi_addr + p->p_vaddr);
        for (size_t k = 0; k + 3 < p->p_memsz / 8; k++)
            if (w[k] == 0x5354415453534c4cULL && w[k + 1] >= 1 && w[k + 1] < 100) w[k + 2] = 1;
    }
    return 1;
}

int main() {
    dl_iterate_phdr(patch, NULL);
    printf("one allocation asked for\n");
    return 0;
}
