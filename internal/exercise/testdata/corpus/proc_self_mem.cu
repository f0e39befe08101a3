// Code written over a function of the program's own through
// /proc/self/mem, whose writes go through a page's protection
// (FOLL_FORCE), as debuggers and some JITs use it: no mprotect for the
// filter to see. In the grading sandbox the program's binary is one its
// user may run but not read, so its process is not dumpable and its
// /proc/self/mem is root's; elsewhere the witness or the scan.
// needs: witness
// want: the statistics record does not match what the kernel saw|exit status 71|/proc/self/mem
// in the sandbox: exit status 71
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include "patch.h"

__attribute__((noinline)) static void victim(uint64_t* p) {
    asm volatile("nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop" ::: "memory");
    (void)p;
}

int main() {
    int fd = open("/proc/self/mem", O_RDWR);
    if (fd < 0) return patch::refused("open /proc/self/mem");
    if (pwrite(fd, patch::code, sizeof patch::code, (off_t)(uintptr_t)&victim) != (ssize_t)sizeof patch::code)
        return patch::refused("write /proc/self/mem");
    return patch::run((const void*)&victim);
}
