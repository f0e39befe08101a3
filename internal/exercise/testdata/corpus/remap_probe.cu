// madvise_probe.cu without madvise: the kernel installs a uprobe's
// breakpoints when a file's code is mapped (mmap), in a private mapping
// that is not writable, and never later. The program maps the CUDA
// runtime's file again over the runtime's own code (MAP_FIXED, the same
// offsets, the same bytes): shared and executable (no breakpoint goes
// into a shared mapping), or private and writable and then made
// executable by mprotect, or private, writable and executable at once.
// The runtime's code then runs from the file's own pages, no byte of it
// written; the program calls the runtime's own cudaMalloc (its symbol
// table, around the statistics library's hooks) a hundred times, which
// no probe sees. Each way passed in the plain runner as root with the
// witness on (no GPU: the runtime's entry counted 1 of 101 calls); the
// grading sandbox's write-exec rule refused all three. The statistics
// library's filter now holds the same rule in every judged run
// (LESSONS_STATS_NOWX): where every way is refused, the forger stops
// with exit status 71.
// want: exit status 71
// forged when it prints: remapped the runtime
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "private_runtime.h"

static const char* way;

static int remap(struct dl_phdr_info* info, size_t, void*) {
    if (strstr(info->dlpi_name, "libcudart") == NULL) return 0;
    int fd = open(info->dlpi_name, O_RDONLY);
    if (fd < 0) return 0;
    long page = sysconf(_SC_PAGESIZE);
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t start = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)(page - 1);
        off_t off = ph->p_offset & ~(off_t)(page - 1);
        size_t n = info->dlpi_addr + ph->p_vaddr + ph->p_memsz - start;
        void* at = (void*)start;
        if (mmap(at, n, PROT_READ | PROT_EXEC, MAP_SHARED | MAP_FIXED, fd, off) == at) {
            way = "shared";
        } else if (mmap(at, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, off) == at &&
                   mprotect(at, n, PROT_READ | PROT_EXEC) == 0) {
            way = "writable, then executable";
        } else if (mmap(at, n, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd, off) == at) {
            way = "writable and executable";
        } else {
            // The first attempt's mapping may be left readable alone: the
            // file's own code, as it was, mapped again as it was. Where
            // that is refused too (code is mapped by the loader alone,
            // round 18), the runtime has no code left to run its
            // destructors with: the program ends here.
            if (mmap(at, n, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd, off) != at) {
                printf("no way to map the runtime again\n");
                fflush(stdout);
                _exit(71);
            }
        }
    }
    close(fd);
    return 1;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted by both
    MallocFn real = loadedMalloc();
    dl_iterate_phdr(remap, NULL);
    if (real != NULL && way == NULL) {
        printf("no way to map the runtime again\n");
        exit(71);
    }
    if (real != NULL) {
        for (int i = 0; i < 100; i++) {
            void* d = NULL;
            real(&d, 1 << 20);
        }
        printf("remapped the runtime (%s) for 100 calls\n", way);
    }
    printf("one allocation asked for\n");
    return 0;
}
