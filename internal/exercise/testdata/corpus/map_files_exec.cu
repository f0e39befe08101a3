// W^X by a second, private mapping of shared memory: the code written
// into an anonymous shared mapping that is only ever writable, its pages
// opened again as a file through /proc/self/map_files (the link of each
// file-backed mapping, a shared anonymous one's included) and mapped
// private, read and execute: no mapping is writable and executable, none
// is executable and shared, and a private mapping of a file shows what
// was written there until its own pages are written. Opening a
// map_files link needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE: the
// sandbox's program has neither (exit status 71); a program running as
// root outside it runs the code, and only the witness or the scan tell.
// needs: witness
// want: the statistics record does not match what the kernel saw|exit status 71|/proc/|the program ran code from a file written during its run
// in the sandbox: exit status 71
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "patch.h"

int main() {
    long page = sysconf(_SC_PAGESIZE);
    unsigned char* rw = (unsigned char*)mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (rw == MAP_FAILED) return patch::refused("mmap shared");
    memcpy(rw, patch::code, sizeof patch::code);
    char path[128];
    snprintf(path, sizeof path, "/proc/self/map_files/%lx-%lx", (unsigned long)rw, (unsigned long)rw + page);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return patch::refused(path);
    void* x = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    if (x == MAP_FAILED) return patch::refused("mmap private exec");
    return patch::run(x);
}
