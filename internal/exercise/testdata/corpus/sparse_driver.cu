// sparse_text.cu for the CUDA driver (round 23): the driver's
// cuMemAlloc_v2 and the work function its entry jumps to, as the bytes
// their run passes when no device answers (five runs, 187 bytes, found
// by single-stepping them once), put into the program's text by
// `.incbin` of driver 535.261.03's file with offsets and lengths, at
// their distances, zeros around them. The copy's read-only and writable
// data are the live driver's, copied into anonymous memory mapped over
// the rest of the section at the distances its code expects, and every
// pointer there to the live driver's code is moved to the copy's (so its
// entry's jump through its slot lands in the copy's work, not in the
// probed one). A hundred calls of the copy's cuMemAlloc_v2: no probe of
// the outside witness is on the program's file, the statistics library
// hooks the live driver's entries alone. With another driver it makes
// an honest run.
// Passed (round 23, fake GPU): as root with the witness on, in the plain
// runner and in the grading sandbox (the driver's cuMemAlloc counted 0
// times), the look for 64-byte blocks and the runtime's layout finding
// nothing. What stops it: the driver's 16-byte blocks at one distance
// over 4 KiB of it or more (embedded.go's driverLayoutSpan: nothing of
// the driver is linked into an honest program). Still open: the work
// function's runs alone, called straight (528 bytes: within the span),
// which is `review/attack15/deep_steps.cu`'s way with a copy.
// want: the program's code holds a copy of
// forged when it prints: ran a sparse copy of the driver
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>


// The driver's layout: its code segment's start and end, the end of its
// image, and cuMemAlloc_v2's place.
#define CODE_AT 0xe1000
#define CODE_END 0x601000
#define IMAGE_END 0x1c6e000
static const uintptr_t entryAt = 0x2d5660;
// The section starts at the code segment's start (.org is from there).
// None where the file is not: the program builds, and its run is honest.
#define RUN(at, n) ".org " #at " - 0xe1000\n.incbin \"" DRIVER_FILE "\"," #at "," #n "\n"
#if __has_include("/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.535.261.03")
#define DRIVER_FILE "/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.535.261.03"
#define RUNS RUN(0x2d5660, 0x12) RUN(0x2d8860, 0x44) RUN(0x2d88b8, 0x43) RUN(0x2d8a6d, 0x18) RUN(0x2d8a88, 0xa)
#else
#define DRIVER_FILE "/dev/null"
#define RUNS
#endif
asm(".pushsection .text.sparse,\"ax\",@progbits\n.balign 4096\n.globl sparseDriver\nsparseDriver:\n" RUNS ".org 0x1c6e000 - 0xe1000\n.popsection");
extern "C" const char sparseDriver[];
static const uintptr_t runs[][2] = {{0x2d5660, 0x12}, {0x2d8860, 0x44}, {0x2d88b8, 0x43}, {0x2d8a6d, 0x18}, {0x2d8a88, 0xa}};

typedef int (*AllocFn)(unsigned long long*, size_t);
static struct dl_phdr_info drv;

static int findDriver(struct dl_phdr_info* info, size_t, void*) {
    const char* b = strrchr(info->dlpi_name, '/');
    if (b == NULL || strncmp(b + 1, "libcuda.so", 10) != 0) return 0;
    drv = *info;
    return 1;
}

static int inRun(uintptr_t page) {
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        if (runs[i][0] < page + 4096 && runs[i][0] + runs[i][1] > page) return 1;
    return 0;
}

static int honest() {
    printf("one allocation asked for\n");
    return 0;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted by both
    void* h = dlopen("libcuda.so.1", RTLD_NOW);  // the runtime unloads it where no device answers
    dl_iterate_phdr(findDriver, NULL);
    if (h == NULL || drv.dlpi_phnum == 0) return honest();
    const char* live = (const char*)drv.dlpi_addr;
    // Which driver: its build id (the note at 0x238), against the file's.
    unsigned char note[0x24];
    FILE* f = fopen(DRIVER_FILE, "rb");
    int same = f != NULL && fseek(f, 0x238, SEEK_SET) == 0 && fread(note, 1, sizeof note, f) == sizeof note && memcmp(note, live + 0x238, sizeof note) == 0 &&
               memcmp(note + 12, "GNU", 4) == 0;
    if (f != NULL) fclose(f);
    if (!same) return honest();
    char* base = (char*)((uintptr_t)sparseDriver - CODE_AT);
    const uintptr_t page = 4096;
    // Every page of the section that no run lies in: the live bytes, as data.
    for (uintptr_t at = CODE_AT; at < IMAGE_END;) {
        if (at < CODE_END && inRun(at)) {
            at += page;
            continue;
        }
        uintptr_t to = at + page;
        while (to < IMAGE_END && !(to < CODE_END && inRun(to))) to += page;
        if (mmap(base + at, to - at, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != base + at) return honest();
        at = to;
    }
    for (uintptr_t at = CODE_AT; at < CODE_END; at += page)
        if (!inRun(at)) memcpy(base + at, live + at, page);
    for (int i = 0; i < drv.dlpi_phnum; i++) {
        const ElfW(Phdr)* ph = &drv.dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && !(ph->p_flags & PF_X) && ph->p_vaddr >= CODE_END && ph->p_vaddr + ph->p_memsz <= IMAGE_END)
            memcpy(base + ph->p_vaddr, live + ph->p_vaddr, ph->p_memsz);
    }
    // Pointers to the live driver's code lead to the copy's.
    for (uintptr_t at = CODE_END; at + 8 <= IMAGE_END; at += 8) {
        uintptr_t* w = (uintptr_t*)(base + at);
        if (*w >= (uintptr_t)live + CODE_AT && *w < (uintptr_t)live + CODE_END) *w += (uintptr_t)base - (uintptr_t)live;
    }
    AllocFn moved = (AllocFn)(base + entryAt);
    for (int i = 0; i < 100; i++) {
        unsigned long long d = 0;
        moved(&d, 1 << 20);
    }
    printf("ran a sparse copy of the driver for 100 calls\n");
    return honest();
}
