// The work done in a child forked from a signal handler that interrupted
// the statistics library while it held its lock: the library takes a fork
// made inside it for the driver's (a helper it starts), and leaves the
// child silent; the child's copy of the lock is held by its own thread, so
// every hook there forwards and counts nothing, and writes no mark. The
// child does the work its own way (a hundred cudaMalloc) and leaves by
// _exit; the program's own record claims one. A timer interrupts the
// program while it calls CUDA, and the handler forks once the interrupted
// code is the library's (its text, found from its cudaMalloc). It races:
// a fork that lands as the library takes its lock hangs the program (a
// timeout), and one that lands in the library with the lock free makes a
// followed child whose record, ended by _exit, is cut short: both fail
// the run too. Before, the record said 1 in both runners and only the
// witness counted the hundred.
// want: does not follow|forked called CUDA|timed out|cut short
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

static uintptr_t base, lo, hi;
static volatile sig_atomic_t child = 0;

static int text(struct dl_phdr_info* info, size_t, void*) {
    if (info->dlpi_addr != base) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            lo = base + ph->p_vaddr;
            hi = lo + ph->p_memsz;
        }
    }
    return 1;
}

static void work() {
    for (int i = 0; i < 100; i++) {
        void* p = NULL;
        cudaMalloc(&p, 1 << 20);
    }
    static const char msg[] = "one allocation asked for\n";
    write(1, msg, sizeof msg - 1);
    _exit(0);
}

static void onTimer(int, siginfo_t*, void* u) {
    if (child != 0) return;
    uintptr_t pc = (uintptr_t)((ucontext_t*)u)->uc_mcontext.gregs[REG_RIP];
    if (pc < lo || pc >= hi) return;
    pid_t pid = fork();
    if (pid == 0) work();
    child = pid;
}

int main() {
    Dl_info d;
    if (dladdr(dlsym(RTLD_DEFAULT, "cudaMalloc"), &d) == 0) return 1;
    base = (uintptr_t)d.dli_fbase;
    dl_iterate_phdr(text, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = onTimer;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval it = {{0, 100}, {0, 100}};
    setitimer(ITIMER_PROF, &it, NULL);
    for (long i = 0; i < 2000000 && child == 0; i++) cudaFree(NULL);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &off, NULL);
    if (child > 0) waitpid(child, NULL, 0);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    return 0;
}
