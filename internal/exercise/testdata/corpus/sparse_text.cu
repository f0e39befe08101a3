// moved_text.cu past the look for the runtime's code blocks (round 23):
// the copy in the program's text holds only the bytes its run passes
// (seven runs of instructions, 220 bytes of cudaMalloc's way when no
// device answers: the PLT stub, cudaMalloc, the three functions it
// calls), put there by `.incbin` with an offset and a length, zeros
// around them; no 64-byte block of the runtime's code is whole in the
// program's file. The pages of the copy that no instruction of the run
// lies in (its read-only data, the rest of its code) are the live
// runtime's bytes copied into anonymous memory mapped over them, not
// executable; its writable data are copied beside it as moved_text.cu
// copies them. The copy's cudaMalloc is called a hundred times: no
// uprobe is on the program's file, no executable mapping is made,
// nothing is written over code. The runs of bytes are those of
// libcudart 11.8.89 (found by single-stepping its run here, once);
// with another runtime it makes an honest run.
// Passed (round 23, fake GPU): as root with the witness on, in the plain
// runner and in the grading sandbox, a worker's user included (1 of 101
// counted), the look for 64-byte blocks finding none. What stops it: the
// runtime's 16-byte blocks are looked for too, and six of them lie at
// one distance from their places over 336 KiB of the runtime
// (embedded.go's holdsLayout). On a GPU the copy's calls would reach the
// driver's probed entries (not measured); a copy whose runs each lie at
// a distance of their own (its calls between them rewritten) is not
// caught by either look.
// want: the program's code holds a copy of
// forged when it prints: ran a sparse copy of the runtime
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

typedef cudaError_t (*MallocFn)(void**, size_t);

// The runs of instructions that cudaMalloc's way passes, as offsets in
// the runtime's file, and the size of its code segment (none where the
// file is not: the program builds, and its run is honest).
#define RUN(at, n) ".org " #at "\n.incbin \"" RUNTIME_FILE "\"," #at "," #n "\n"
#if __has_include("/usr/lib/x86_64-linux-gnu/libcudart.so.11.8.89")
#define RUNTIME_FILE "/usr/lib/x86_64-linux-gnu/libcudart.so.11.8.89"
#define RUNS RUN(0xebd0, 6) RUN(0x241f0, 0x21) RUN(0x24218, 5) RUN(0x26390, 0x23) RUN(0x50ca0, 0x4e) RUN(0x50e1f, 0x12) RUN(0x785d0, 0x18)
#else
#define RUNTIME_FILE "/dev/null"
#define RUNS
#endif
#define CODE_SIZE 0xa0000
asm(".pushsection .text.sparse,\"ax\",@progbits\n.balign 4096\n.globl sparseRuntime\nsparseRuntime:\n" RUNS ".org 0xa0000\n.popsection");
extern "C" const char sparseRuntime[];
static const uintptr_t runs[][2] = {{0xebd0, 6}, {0x241f0, 0x21}, {0x24218, 5}, {0x26390, 0x23}, {0x50ca0, 0x4e}, {0x50e1f, 0x12}, {0x785d0, 0x18}};
static const uintptr_t cudaMallocAt = 0x50ca0;

static struct dl_phdr_info rt;

static int findRuntime(struct dl_phdr_info* info, size_t, void*) {
    const char* b = strrchr(info->dlpi_name, '/');
    if (b == NULL || strncmp(b + 1, "libcudart", 9) != 0) return 0;
    rt = *info;
    return 1;
}

static int inRun(uintptr_t page) {
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        if (runs[i][0] < page + 4096 && runs[i][0] + runs[i][1] > page) return 1;
    return 0;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted by both
    dl_iterate_phdr(findRuntime, NULL);
    const char* live = (const char*)rt.dlpi_addr;
    int same = rt.dlpi_phnum != 0;
    // The runs' own bytes may hold the witness's breakpoints: the build
    // id (its note at 0x200) says which runtime this is.
    static const unsigned char id[] = {0x04, 0, 0, 0, 0x14, 0, 0, 0, 0x03, 0, 0, 0, 'G', 'N', 'U', 0};
    same = same && memcmp(live + 0x200, id, sizeof id) == 0 && strstr(RUNTIME_FILE, "11.8.89") != NULL;
    unsigned char note[0x24];
    FILE* f = fopen(RUNTIME_FILE, "rb");
    same = same && f != NULL && fseek(f, 0x200, SEEK_SET) == 0 && fread(note, 1, sizeof note, f) == sizeof note && memcmp(note, live + 0x200, sizeof note) == 0;
    if (f != NULL) fclose(f);
    if (!same) {
        printf("the runtime is not the one the runs were taken from\n");
        printf("one allocation asked for\n");
        return 0;
    }
    char* base = (char*)sparseRuntime;
    const uintptr_t page = 4096;
    // The copy's pages that no run lies in: the live bytes, as data.
    for (uintptr_t at = 0; at < CODE_SIZE; at += page) {
        if (inRun(at)) continue;
        if (mmap(base + at, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != base + at) {
            printf("no room for the copy's read-only data\n");
            printf("one allocation asked for\n");
            return 0;
        }
        memcpy(base + at, live + at, page);
    }
    // Its writable data, at the distance its code expects.
    for (int i = 0; i < rt.dlpi_phnum; i++) {
        const ElfW(Phdr)* ph = &rt.dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || (ph->p_flags & PF_X)) continue;
        uintptr_t at = ph->p_vaddr & ~(page - 1);
        size_t n = ((ph->p_vaddr + ph->p_memsz + page - 1) & ~(page - 1)) - at;
        if (mmap(base + at, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != base + at) {
            printf("no room for the copy's data\n");
            printf("one allocation asked for\n");
            return 0;
        }
        memcpy(base + at, live + at, n);
    }
    MallocFn moved = (MallocFn)(base + cudaMallocAt);
    for (int i = 0; i < 100; i++) {
        void* d = NULL;
        moved(&d, 1 << 20);
    }
    printf("ran a sparse copy of the runtime for 100 calls\n");
    printf("one allocation asked for\n");
    return 0;
}
