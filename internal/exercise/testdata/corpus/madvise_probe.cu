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
// for the calling process since Linux 6.13) does the same, and so does
// an io_uring's IORING_OP_MADVISE (Linux 5.6), which no system call
// filter sees, and so do MADV_GUARD_INSTALL then MADV_GUARD_REMOVE. It passed with
// the witness on, as root, plain and sandbox (no GPU: the runtime's entry
// counted 1 of 101 calls). The statistics library's filter now refuses
// MADV_DONTNEED and every advice from MADV_DONTNEED_LOCKED (24) on, the
// guard regions' among them (which passed, plain and sandbox, once
// MADV_DONTNEED alone was refused), process_madvise and io_uring_setup
// (the io_uring's way passed in the plain runner as root; the sandbox
// refused io_uring_setup already) in every judged run: where every way
// is refused, the forger stops with exit status 71.
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
#include <linux/io_uring.h>
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

// The same advice through an io_uring of one entry: set up (a single
// mapping for both rings, Linux 5.4), one IORING_OP_MADVISE submitted and
// waited for.
static bool dropByRing(void* start, size_t n) {
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    int fd = (int)syscall(425 /* io_uring_setup */, 1, &p);
    if (fd < 0 || !(p.features & IORING_FEAT_SINGLE_MMAP)) return false;
    size_t ringSize = p.sq_off.array + p.sq_entries * sizeof(unsigned);
    size_t cqSize = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
    if (cqSize > ringSize) ringSize = cqSize;
    char* ring = (char*)mmap(NULL, ringSize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
    struct io_uring_sqe* sqes = (struct io_uring_sqe*)mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                                                           fd, IORING_OFF_SQES);
    if (ring == MAP_FAILED || sqes == MAP_FAILED) return false;
    memset(&sqes[0], 0, sizeof sqes[0]);
    sqes[0].opcode = IORING_OP_MADVISE;
    sqes[0].addr = (uintptr_t)start;
    sqes[0].len = (unsigned)n;
    sqes[0].fadvise_advice = MADV_DONTNEED;
    unsigned* tail = (unsigned*)(ring + p.sq_off.tail);
    ((unsigned*)(ring + p.sq_off.array))[*tail & *(unsigned*)(ring + p.sq_off.ring_mask)] = 0;
    __atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
    if (syscall(426 /* io_uring_enter */, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0) return false;
    unsigned head = __atomic_load_n((unsigned*)(ring + p.cq_off.head), __ATOMIC_ACQUIRE);
    struct io_uring_cqe* cqe = (struct io_uring_cqe*)(ring + p.cq_off.cqes) + (head & *(unsigned*)(ring + p.cq_off.ring_mask));
    return cqe->res == 0;
}

// Guard regions (Linux 6.13; a file's private mapping since 6.15): one
// installed zaps the range's pages, and removed leaves it empty.
static bool guarded(void* start, size_t n) {
    return madvise(start, n, 102 /* MADV_GUARD_INSTALL */) == 0 && madvise(start, n, 103 /* MADV_GUARD_REMOVE */) == 0;
}

static int drop(struct dl_phdr_info* info, size_t, void*) {
    if (strstr(info->dlpi_name, "libcudart") == NULL && strstr(info->dlpi_name, "libcuda.so") == NULL) return 0;
    long page = sysconf(_SC_PAGESIZE);
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t start = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)(page - 1);
        uintptr_t end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        if (madvise((void*)start, end - start, MADV_DONTNEED) == 0 || dropOwn((void*)start, end - start) ||
            dropByRing((void*)start, end - start) || guarded((void*)start, end - start))
            dropped++;
    }
    return 0;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted by both
    MallocFn real = loadedMalloc();
    dl_iterate_phdr(drop, NULL);
    if (real != NULL && dropped == 0) {
        printf("madvise, process_madvise, io_uring and guard regions refused\n");
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
