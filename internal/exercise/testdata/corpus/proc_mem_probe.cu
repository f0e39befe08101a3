// madvise_probe.cu's end by a write: the uprobes' breakpoints (int3)
// overwritten with the file's own bytes through /proc/self/mem, which
// writes a read-only page of code (FOLL_FORCE) where the process may
// open it. The program compares the CUDA runtime's code in memory with
// its file and writes back every byte that differs, then calls the
// runtime's own cudaMalloc (its symbol table, around the statistics
// library's hooks) a hundred times, which no probe sees, and puts the
// breakpoints back (attack19), so that a look at its code at the end
// finds them where the witness left them.
// Passed in the plain runner as root with the witness on (round 17: the
// runtime's entry counted 1 of 101 calls), since root keeps its
// /proc/self/mem whatever its dumpable flag. Round 18 closed it with
// Landlock (nothing under /proc writable in a judged run with the
// write-exec rule); on the H200 (driver 580, session 22) every solution
// then failed at its first CUDA call with cudaErrorOperatingSystem (the
// driver names its threads by writing /proc/self/task/TID/comm), so the
// rule was taken out. Now (attack19) the witness counts every write a
// run's thread makes through a /proc/PID/mem file (an fentry program or
// a kprobe on the kernel's mem_write) and fails a run that made any:
// nothing in the process is touched, so no honest run's thread names
// are. Open still where that count could not attach (attack19's test
// machine and the GPU machine of session 23, Linux 6.18: no kprobes, the
// fentry program refused with EPERM); round 20 (attack20) counts there
// by raw tracepoints on sys_enter and sys_exit, each write's descriptor
// followed to a file whose write is the kernel's mem_write, so it is
// back in the corpus (TestWitnessCountsProcMemWrites runs it too). In
// the grading sandbox the program is not root and not dumpable:
// /proc/self/mem is root's, the write is refused (exit status 71);
// wherever the witness is off, the scan names /proc/.
// needs: witness
// in the sandbox: exit status 71
// want: through /proc/PID/mem|/proc/
// forged when it prints: restored the runtime
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "private_runtime.h"

static int restored;
static const char* at[4096];
static char was[4096];

static int restore(struct dl_phdr_info* info, size_t, void*) {
    if (strstr(info->dlpi_name, "libcudart") == NULL) return 0;
    int fd = open(info->dlpi_name, O_RDONLY);
    int mem = open("/proc/self/mem", O_RDWR);
    if (mem < 0) {
        printf("/proc/self/mem refused\n");
        exit(71);
    }
    if (fd < 0) return 1;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        char* buf = (char*)malloc(ph->p_filesz);
        if (pread(fd, buf, ph->p_filesz, ph->p_offset) != (ssize_t)ph->p_filesz) continue;
        const char* live = (const char*)(info->dlpi_addr + ph->p_vaddr);
        for (size_t k = 0; k < ph->p_filesz; k++)
            if (live[k] != buf[k] && restored < 4096) {
                char old = live[k];
                if (pwrite(mem, buf + k, 1, (off_t)(uintptr_t)(live + k)) != 1) continue;
                at[restored] = live + k;
                was[restored++] = old;
            }
        free(buf);
    }
    close(fd);
    close(mem);
    return 1;
}

// putBack writes the breakpoints back where they were.
static void putBack() {
    int mem = open("/proc/self/mem", O_RDWR);
    for (int i = 0; mem >= 0 && i < restored; i++) pwrite(mem, &was[i], 1, (off_t)(uintptr_t)at[i]);
    if (mem >= 0) close(mem);
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    MallocFn real = loadedMalloc();
    dl_iterate_phdr(restore, NULL);
    if (real != NULL && restored > 0) {
        for (int i = 0; i < 100; i++) {
            void* d = NULL;
            real(&d, 1 << 20);
        }
        putBack();
        printf("restored the runtime's %d bytes for 100 calls\n", restored);
    }
    printf("one allocation asked for\n");
    return 0;
}
