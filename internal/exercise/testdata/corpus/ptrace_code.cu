// Code written over a function of the program's own by a child it forked
// (before any CUDA call), after the public corpus's ptrace exploit: the
// program lets any process trace it (prctl PR_SET_PTRACER), the child
// attaches and writes the code with PTRACE_POKETEXT, which goes through a
// page's protection as /proc/self/mem does, with no mprotect for the
// filter to see. In the grading sandbox the program is not dumpable (its
// binary unreadable, and the library's prctl), so only root may attach:
// refused. Elsewhere the witness, or the scan (ptrace).
// needs: witness
// want: the statistics record does not match what the kernel saw|exit status 71|ptrace
// in the sandbox: exit status 71
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>
#include "patch.h"

__attribute__((noinline)) static void victim(uint64_t* p) {
    asm volatile("nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop" ::: "memory");
    (void)p;
}

int main() {
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        if (ptrace(PTRACE_ATTACH, parent, 0, 0) != 0) _exit(1);
        waitpid(parent, NULL, __WALL);
        long word;
        memcpy(&word, patch::code, sizeof word);
        long r = ptrace(PTRACE_POKETEXT, parent, (void*)(uintptr_t)&victim, (void*)word);
        ptrace(PTRACE_DETACH, parent, 0, 0);
        _exit(r == 0 ? 0 : 2);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return patch::refused("ptrace");
    return patch::run((const void*)&victim);
}
