// raw_clone.cu with the library's own system calls taken over: the child
// made by clone (which the library does not follow) turns on syscall user
// dispatch (prctl PR_SET_SYSCALL_USER_DISPATCH, Linux 5.11), which makes
// every system call from outside one range of addresses a SIGSYS. The
// range is everything below the statistics library, so that the C
// library's calls (and its signal return) go through, while the library's
// raw system calls come to the program's handler: it drops the mark that
// would fail the run and ignores the exit (status 72) that would end the
// child before its first CUDA call, and makes every other call itself.
// The child then does the work (a hundred cudaMalloc), unseen, while the
// program's own record claims one. Passed wherever the witness was off.
// want: does not follow
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#define PR_SYS_DISPATCH_ON 1
#endif

static char stack[1 << 20];

static long call6(long n, long a, long b, long c, long d, long e, long f) {
    long r;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ __volatile__("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9) : "rcx", "r11", "memory");
    return r;
}

static void taken(int, siginfo_t*, void* ctx) {
    greg_t* g = ((ucontext_t*)ctx)->uc_mcontext.gregs;
    long n = g[REG_RAX], a = g[REG_RDI], b = g[REG_RSI], c = g[REG_RDX];
    if (n == SYS_exit_group && a == 72) g[REG_RAX] = 0;
    else if (n == SYS_write && c == 12 && memcmp((const void*)b, "LSUNFOLLOWED", 12) == 0) g[REG_RAX] = 12;
    else g[REG_RAX] = call6(n, a, b, c, g[REG_R10], g[REG_R8], g[REG_R9]);
}

static int work(void*) {
    Dl_info d;
    if (dladdr((void*)&dlsym, &d) == 0) return 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = taken;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSYS, &sa, NULL);
    if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, 0, (unsigned long)d.dli_fbase, 0) != 0) perror("dispatch");
    for (int i = 0; i < 100; i++) {
        void* p = NULL;
        cudaMalloc(&p, 1 << 20);
    }
    return 0;
}

int main() {
    int pid = clone(work, stack + sizeof stack, SIGCHLD, NULL);
    int st = 0;
    if (pid > 0) waitpid(pid, &st, 0);
    printf("the child's status: %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
