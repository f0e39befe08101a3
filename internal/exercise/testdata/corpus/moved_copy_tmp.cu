// loader_mmap.cu with nothing mapped over the runtime (whose code is
// sealed now): a second image of the CUDA runtime made by hand at an
// address of the program's choosing. Its code is mapped from a copy of
// the runtime's file (a memfd: another inode, which no uprobe is on)
// through the loader's own mmap (the loader-only rule), its data are the
// live runtime's bytes copied beside it (relocated already: the copy's
// pointers lead where the runtime's do, its thread storage is the
// runtime's), so the copy's cudaMalloc, at the same offset from the new
// base, runs the runtime's code unprobed. A hundred calls, then the image
// unmapped and the memfd closed: the library's look at the mappings at
// its end finds nothing, and the loader never knew of it.
// The same with the copy written to a file in /tmp (removed before the
// end) in place of the memfd (attack19): the plain runner has no noexec
// mount, so refusing memfd_create would not have closed it.
// Passed (round 18, attack19; no GPU): the plain runner as root with
// the witness on (the runtime's entry counted 1 of 101 calls), after
// round 18's fixes (the runtime's code is sealed, but nothing is mapped
// over it; the loader-only rule is passed by the loader's own mmap), and
// wherever the witness is off (the scan names the dynamic loading and
// PROT_EXEC). No system call filter sees which file an mmap maps, and an
// address check of the system call's is passed by calling code that has
// the address. What stops it now (round 20, attack20): the witness counts
// every mmap with PROT_EXEC that a run's thread asks for of a file whose
// ctime is at or after the run's start, a memfd included (a raw
// tracepoint on sys_enter, the descriptor followed to its inode), and any
// fails the run ("executable mappings of files written during the run").
// In the grading sandbox memfd_create is refused and every folder the
// program may write is noexec: exit status 71.
// needs: witness
// want: executable mappings of files written during the run|exit status 71|PROT_EXEC
// forged when it prints: ran a moved copy of the runtime
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "private_runtime.h"

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted by both
    MallocFn real = loadedMalloc();
    dl_iterate_phdr(findRuntime, NULL);
    dl_iterate_phdr(findLoader, NULL);
    if (real == NULL || rt.dlpi_phnum == 0 || loaderMmap == NULL) {
        printf("one allocation asked for\n");
        return 0;
    }
    const uintptr_t page = 4096;
    uintptr_t lo, hi;
    runtimeSpan(page, &lo, &hi);
    int fd = copyOf(rtPath, "/tmp", 0);
    char* base = (char*)mmap(NULL, hi - lo, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (fd < 0 || base == MAP_FAILED) {
        printf("no copy\n");
        exit(71);
    }
    base -= lo;
    for (int i = 0; i < rt.dlpi_phnum; i++) {
        const ElfW(Phdr)* ph = &rt.dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t at = ph->p_vaddr & ~(page - 1);
        size_t n = ((ph->p_vaddr + ph->p_memsz + page - 1) & ~(page - 1)) - at;
        if (ph->p_flags & PF_X) {
            if (loaderMmap(base + at, n, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd, ph->p_offset & ~(off_t)(page - 1)) != base + at) {
                printf("the copy's code refused\n");
                exit(71);
            }
        } else {
            mmap(base + at, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
            memcpy(base + at, (const char*)rt.dlpi_addr + at, n);
        }
    }
    MallocFn moved = (MallocFn)(base + ((uintptr_t)real - rt.dlpi_addr));
    for (int i = 0; i < 100; i++) {
        void* d = NULL;
        moved(&d, 1 << 20);
    }
    munmap(base + lo, hi - lo);
    close(fd);
    printf("ran a moved copy of the runtime for 100 calls\n");
    printf("one allocation asked for\n");
    return 0;
}
