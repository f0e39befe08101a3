// moved_copy.cu with no file written (round 22): the CUDA runtime's
// file is put into the program's own binary when it is built (an
// `.incbin` of the runtime's file in a page-aligned section of read-only
// data), and the second image's code is mapped, through the loader's own
// mmap, from the program's own file (/proc/self/exe) at that section's
// offset: an inode no uprobe is on, whose ctime is older than the run
// (the program is built, and copied into the run's folder, before it
// starts), so the witness's rule on executable mappings of files written
// during the run does not count it; its data are the live runtime's
// bytes copied beside it, as moved_copy.cu's are. A hundred calls of the
// copy's cudaMalloc, then the image unmapped before the library's look.
// Where the program's binary is one it may run but not read (the grading
// sandbox's worker user) the open fails: exit status 71.
// Passed (round 22, fake GPU): as root with the witness on, in the plain
// runner and in the sandbox with LESSONS_SANDBOX_USERS=off (1 of 101
// counted). What stops it: the program's file is read before the run for
// blocks of the runtime's and the driver's code (embedded.go, as
// moved_text.cu); and the witness counts an executable mmap of the
// program's own file whatever its age.
// want: the program's code holds a copy of|executable mappings of files written during the run|exit status 71
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

// The runtime's file as the build finds it: the one the program loads
// on this machine, checked against it at run time (none found: an
// honest run).
#if __has_include("/usr/lib/x86_64-linux-gnu/libcudart.so.11.0")
#define RUNTIME_FILE "/usr/lib/x86_64-linux-gnu/libcudart.so.11.0"
#elif __has_include("/usr/local/cuda/lib64/libcudart.so.13")
#define RUNTIME_FILE "/usr/local/cuda/lib64/libcudart.so.13"
#elif __has_include("/usr/local/cuda/lib64/libcudart.so.12")
#define RUNTIME_FILE "/usr/local/cuda/lib64/libcudart.so.12"
#elif __has_include("/usr/local/cuda/lib64/libcudart.so.11.0")
#define RUNTIME_FILE "/usr/local/cuda/lib64/libcudart.so.11.0"
#else
#define RUNTIME_FILE "/dev/null"
#endif
asm(".pushsection .rodata.embedded,\"a\"\n.balign 4096\n.globl embeddedRuntime\nembeddedRuntime:\n.incbin \"" RUNTIME_FILE "\"\n.globl embeddedEnd\nembeddedEnd:\n.popsection");
extern "C" const char embeddedRuntime[], embeddedEnd[];

// offsetInExe is where addr lies in the program's own file.
static off_t offsetInExe(const void* addr) {
    const ElfW(Phdr)* ph = (const ElfW(Phdr)*)getauxval(AT_PHDR);
    size_t n = getauxval(AT_PHNUM);
    uintptr_t bias = 0;
    for (size_t i = 0; i < n; i++)
        if (ph[i].p_type == PT_PHDR) bias = getauxval(AT_PHDR) - ph[i].p_vaddr;
    for (size_t i = 0; i < n; i++) {
        uintptr_t v = (uintptr_t)addr - bias;
        if (ph[i].p_type == PT_LOAD && v >= ph[i].p_vaddr && v < ph[i].p_vaddr + ph[i].p_filesz) return (off_t)(ph[i].p_offset + (v - ph[i].p_vaddr));
    }
    return -1;
}

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
    // The embedded file must be the one loaded: the same size, the same
    // bytes where the loaded one is mapped from its start.
    struct stat st;
    off_t at0 = offsetInExe(embeddedRuntime);
    if (stat(rtPath, &st) != 0 || (size_t)st.st_size != (size_t)(embeddedEnd - embeddedRuntime) || at0 < 0 || (at0 & 4095) != 0 ||
        memcmp(embeddedRuntime, (const void*)rt.dlpi_addr, 64) != 0) {
        printf("the embedded runtime is not the loaded one\n");
        printf("one allocation asked for\n");
        return 0;
    }
    int fd = open("/proc/self/exe", O_RDONLY);
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
            if (loaderMmap(base + at, n, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd, at0 + (ph->p_offset & ~(off_t)(page - 1))) != base + at) {
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
