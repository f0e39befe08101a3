// key_recovery.cu by one that knows where the grader's build of the
// statistics library keeps the run's key, its pipe, its frame number and
// its end mark (its source is public, its build reproducible: layout.h
// holds their offsets, read from the same build with its symbol table,
// as TestCorpus writes it). No symbol table is needed, no file read: the
// program takes the key from its own memory, marks the channel ended and
// signs an end frame of its own that claims one cudaMalloc, and that the
// program called the driver's allocation functions itself (a record
// that said so had its allocation counts left out of the witness's
// comparison). Nothing inside the process can stop it: without the
// outside witness it passes, and the grade marks it not witnessed; with
// the witness, the kernel counted no cudaMalloc and no driver call.
// needs: witness
// want: the statistics record does not match what the kernel saw|dl_iterate_phdr
#include <link.h>
#include <stdio.h>
#include <string.h>
#include "forge.h"
#include "layout.h"

static int visit(struct dl_phdr_info* info, size_t, void* out) {
    if (strstr(info->dlpi_name, "allocstats") == NULL) return 0;
    *(ElfW(Addr)*)out = info->dlpi_addr;
    return 1;
}

int main() {
    ElfW(Addr) base = 0;
    dl_iterate_phdr(visit, &base);
    if (base == 0 || LAYOUT_KEY == 0) return 72;
    uint8_t k[32];
    memcpy(k, (const void*)(base + LAYOUT_KEY), 32);
    int pipe = *(int*)(base + LAYOUT_CHAN);
    uint64_t next = *(uint64_t*)(base + LAYOUT_SEQ);
    *(bool*)(base + LAYOUT_ENDED) = true;
    if (!forge::frame(pipe, k, 3, next, 1, 1, 1)) return 74;
    printf("one allocation asked for\n");
    return 0;
}
