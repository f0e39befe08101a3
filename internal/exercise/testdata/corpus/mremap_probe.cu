// madvise_probe.cu by mremap: MREMAP_DONTUNMAP (Linux 5.7; for a file's
// mappings since 5.13) moves a mapping's pages, the private copies that
// hold the uprobes' breakpoints among them, to a new place and leaves
// the old range mapped as it was, empty: the next fetch there maps the
// file's own page, without the breakpoint. The program moves the CUDA
// runtime's code so, calls the runtime's own cudaMalloc (its symbol
// table, around the statistics library's hooks) a hundred times at the
// old place, which no probe sees. No byte written, no mapping made
// writable or executable: the grading sandbox's write-exec rule looks
// at mmap and mprotect. It passed with the witness on, as root, plain
// and sandbox (no GPU: the runtime's entry counted 1 of 101 calls), once
// madvise was refused. The statistics library's filter now refuses
// MREMAP_DONTUNMAP in every judged run: the forger stops with exit
// status 71.
// want: exit status 71
// forged when it prints: moved the probes
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "private_runtime.h"

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

static int moved, refused;

static int move(struct dl_phdr_info* info, size_t, void*) {
    if (strstr(info->dlpi_name, "libcudart") == NULL && strstr(info->dlpi_name, "libcuda.so") == NULL) return 0;
    long page = sysconf(_SC_PAGESIZE);
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t start = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)(page - 1);
        uintptr_t end = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + page - 1) & ~(uintptr_t)(page - 1);
        void* to = mremap((void*)start, end - start, end - start, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, (void*)NULL);
        if (to == MAP_FAILED) {
            refused++;
            continue;
        }
        munmap(to, end - start);  // the pages with the breakpoints, now elsewhere
        moved++;
    }
    return 0;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted by both
    MallocFn real = loadedMalloc();
    dl_iterate_phdr(move, NULL);
    if (real != NULL && moved == 0) {
        printf("mremap refused (%d)\n", refused);
        exit(71);
    }
    if (real != NULL) {
        for (int i = 0; i < 100; i++) {
            void* d = NULL;
            real(&d, 1 << 20);
        }
        printf("moved the probes of %d segments for 100 calls\n", moved);
    }
    printf("one allocation asked for\n");
    return 0;
}
