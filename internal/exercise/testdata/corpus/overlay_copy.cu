// remap_probe.cu with a copy: a uprobe belongs to its file's inode, and
// the kernel puts its breakpoints into the mappings of that file alone.
// The program copies the CUDA runtime's and driver's files (a memfd, or a
// file it writes in /dev/shm, /tmp or its folder) and maps each copy
// over the real library's code (MAP_FIXED, the same offsets, private,
// read and execute: no mapping writable and executable, none shared, so
// the write-exec rule let it by). The same bytes run at the same
// addresses, from a file no probe is on; the program calls the runtime's
// own cudaMalloc (its symbol table, around the statistics library's
// hooks) a hundred times, then maps the real files back over their code
// (the kernel puts the breakpoints back) and removes its copies, so the
// library's look at the mappings at its end (and before every dlclose)
// finds nothing written during the run. Passed in the plain runner as
// root with the witness on (the runtime's entry counted 1 of 101 calls).
// Now the library's filter lets a judged run map code (mmap with
// PROT_EXEC) from the loader's own code alone (dlopen), never from the
// program's nor the C library's: every way is refused, exit status 71.
// want: exit status 71
// forged when it prints: ran a copy of the runtime
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "private_runtime.h"

struct Lib { const char* tag; char path[512]; uintptr_t start[4]; off_t off[4]; size_t n[4]; int segs; int copy; };
static Lib libs[2] = {{"libcudart"}, {"libcuda.so"}};
static const char* way;

static int find(struct dl_phdr_info* info, size_t, void*) {
    const char* b = strrchr(info->dlpi_name, '/');
    b = b != NULL ? b + 1 : info->dlpi_name;
    long page = sysconf(_SC_PAGESIZE);
    for (Lib& l : libs) {
        if (l.segs != 0 || strncmp(b, l.tag, strlen(l.tag)) != 0) continue;
        snprintf(l.path, sizeof l.path, "%s", info->dlpi_name);
        for (int i = 0; i < info->dlpi_phnum && l.segs < 4; i++) {
            const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
            if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
            uintptr_t start = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)(page - 1);
            l.start[l.segs] = start;
            l.off[l.segs] = ph->p_offset & ~(off_t)(page - 1);
            l.n[l.segs] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz - start;
            l.segs++;
        }
    }
    return 0;
}

// overlay maps each library's code from fd (its copy) or from its own
// file again (fd < 0): private, read and execute, over itself.
static bool overlay(Lib& l, int fd) {
    int own = fd < 0 ? open(l.path, O_RDONLY) : fd;
    bool ok = own >= 0;
    for (int i = 0; ok && i < l.segs; i++)
        ok = mmap((void*)l.start[i], l.n[i], PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, own, l.off[i]) == (void*)l.start[i];
    if (fd < 0 && own >= 0) close(own);
    return ok;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted by both
    MallocFn real = loadedMalloc();
    dl_iterate_phdr(find, NULL);
    if (real == NULL || libs[0].segs == 0) {
        printf("one allocation asked for\n");
        return 0;
    }
    char cwd[400];
    const char* dirs[] = {NULL, "/dev/shm", "/tmp", getcwd(cwd, sizeof cwd)};
    const char* ways[] = {"memfd", "/dev/shm", "/tmp", "its folder"};
    int fds[2] = {-1, -1};
    for (int d = 0; d < 4 && way == NULL; d++) {
        bool ok = true;
        for (int k = 0; k < 2 && ok; k++) {
            if (libs[k].segs == 0) continue;
            fds[k] = copyOf(libs[k].path, dirs[d], k);
            ok = fds[k] >= 0 && overlay(libs[k], fds[k]);
        }
        if (ok) way = ways[d];
        for (int k = 0; k < 2; k++) {
            if (!ok && libs[k].segs != 0) overlay(libs[k], -1);
            if (!ok && fds[k] >= 0) close(fds[k]), fds[k] = -1;
            if (!ok && copyPath[k][0] != 0) unlink(copyPath[k]);
        }
    }
    if (way == NULL) {
        printf("no way to map a copy of the runtime\n");
        exit(71);
    }
    for (int i = 0; i < 100; i++) {
        void* d = NULL;
        real(&d, 1 << 20);
    }
    for (int k = 0; k < 2; k++) {
        if (libs[k].segs != 0 && !overlay(libs[k], -1)) {
            printf("could not map the real library back\n");
            exit(1);
        }
        if (fds[k] >= 0) close(fds[k]);
        if (copyPath[k][0] != 0) unlink(copyPath[k]);
    }
    printf("ran a copy of the runtime (%s) for 100 calls\n", way);
    printf("one allocation asked for\n");
    return 0;
}
