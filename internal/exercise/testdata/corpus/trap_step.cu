// raw_clone.cu with the library's own checks stepped over, one
// instruction at a time, by the program itself: no memory written, no
// system call the sandbox refuses, nothing known of the library's build.
// The child made by clone (which the library does not follow) sets the
// trap flag in the flags a signal handler returns to (x86-64 lets a
// process single-step itself so), and its SIGTRAP handler, called after
// every instruction, looks at the next one: the library's raw system call
// that writes the mark of a process not followed, or ends it (exit
// status 72), is skipped with its answer made up. The child then makes
// its hundred cudaMalloc unseen, and the program's own record claims one.
// Passed wherever the witness was off (as nobody, in both runners). The
// library's filter now refuses a handler of SIGTRAP (and perf_event_open,
// whose breakpoints signal as well): where the way is refused, the forger
// stops with exit status 71.
// want: exit status 71
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>

static char stack[1 << 20];
static volatile int stepping;

static void step(int, siginfo_t*, void* ctx) {
    greg_t* g = ((ucontext_t*)ctx)->uc_mcontext.gregs;
    const unsigned char* pc = (const unsigned char*)g[REG_RIP];
    if (pc[0] == 0x0f && pc[1] == 0x05) {
        if (g[REG_RAX] == SYS_exit_group && g[REG_RDI] == 72) {
            g[REG_RIP] += 2;
            g[REG_RAX] = 0;
            stepping = 0;
        } else if (g[REG_RAX] == SYS_write && g[REG_RDX] == 12 && memcmp((const void*)g[REG_RSI], "LSUNFOLLOWED", 12) == 0) {
            g[REG_RIP] += 2;
            g[REG_RAX] = 12;
        }
    }
    if (!stepping) g[REG_EFL] &= ~0x100L;
}

static void start(int, siginfo_t*, void* ctx) { ((ucontext_t*)ctx)->uc_mcontext.gregs[REG_EFL] |= 0x100L; }

static int work(void*) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_flags = SA_SIGINFO;
    sa.sa_sigaction = step;
    if (sigaction(SIGTRAP, &sa, NULL) != 0) return 71;
    sa.sa_sigaction = start;
    sigaction(SIGUSR1, &sa, NULL);
    for (int i = 0; i < 100; i++) {
        void* p = NULL;
        stepping = 1;
        raise(SIGUSR1);
        cudaMalloc(&p, 1 << 20);
        stepping = 0;
    }
    return 0;
}

int main() {
    int pid = clone(work, stack + sizeof stack, SIGCHLD, NULL);
    int st = 0;
    if (pid > 0) waitpid(pid, &st, 0);
    printf("the child's status: %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return 71;
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
