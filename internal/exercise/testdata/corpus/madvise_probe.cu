// A uprobe is a breakpoint (int3) the kernel writes into a private copy
// of the probed page, in each process that maps the file's code. That
// copy is anonymous memory: madvise(MADV_DONTNEED) over the CUDA
// runtime's and driver's code drops it, and the next fetch maps the
// file's own page again, without the breakpoint (the kernel installs
// them at mmap, never at a fault). No byte written, no mapping made
// writable or executable, no file but the machine's: the program then
// calls the runtime's own cudaMalloc (its symbol table, around the
// statistics library's hooks) a hundred times, which no probe sees.
// Where madvise is refused, process_madvise on its own pidfd (any advice
// for the calling process since Linux 6.13) does the same. It passed with
// the witness on, as root, plain and sandbox (no GPU: the runtime's entry
// counted 1 of 101 calls). The statistics library's filter now refuses
// MADV_DONTNEED (and MADV_DONTNEED_LOCKED) and process_madvise in every
// judged run: where every way is refused, the forger stops with exit
// status 71.
// want: exit status 71
// forged when it prints: dropped the probes
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "private_runtime.h"

static int dropped;

// process_madvise(2) on the program's own pidfd: 440 and 434 on x86-64
// and arm64 alike.
static bool dropOwn(void* start, size_t n) {
    static long self = -1;
    if (self < 0) self = syscall(434 /* pidfd_open */, getpid(), 0);
    struct iovec v = {start, n};
    return self >= 0 && syscall(440 /* process_madvise */, self, &v, 1, MADV_DONTNEED, 0) == (long)n;
}

static int drop(struct dl_phdr_info* info, size_t, void*) {
    if (strstr(info->dlpi_name, "libcudart") == NULL && strstr(info->dlpi_name, "libcuda.so") == NULL) return 0;
    long page = sysconf(_SC_PAGESIZE);
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t start = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)(page - 1);
        uintptr_t end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        if (madvise((void*)start, end - start, MADV_DONTNEED) == 0 || dropOwn((void*)start, end - start)) dropped++;
    }
    return 0;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted by both
    void* h = NULL;
    const char* names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so"};
    for (const char* n : names)
        if (h == NULL) h = dlopen(n, RTLD_NOW | RTLD_NOLOAD);
    MallocFn real = h != NULL ? (MallocFn)privateSymbol(h, "cudaMalloc") : NULL;
    dl_iterate_phdr(drop, NULL);
    if (real != NULL && dropped == 0) {
        printf("madvise and process_madvise refused\n");
        exit(71);
    }
    if (real != NULL) {
        for (int i = 0; i < 100; i++) {
            void* d = NULL;
            real(&d, 1 << 20);
        }
        printf("dropped the probes of %d segments for 100 calls\n", dropped);
    }
    printf("one allocation asked for\n");
    return 0;
}
