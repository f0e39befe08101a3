// The count skipped by leaving the hook from a signal handler: the hook
// of cudaMalloc counts the call after the real one returns, so the
// program hands the real cudaMalloc a result pointer into a page it may
// not write (PROT_NONE). On a GPU the runtime allocates and then faults
// writing the address; the program's SIGSEGV handler siglongjmp's out of
// the runtime and the hook, past the count. A hundred allocations made
// (their addresses lost: the work here is the memory taken), none
// counted; then the one honest call. No memory of the library written,
// no system call refused, no name of the library's known.
// With a fake GPU the runtime fails before it writes the result, so the
// call returns and is counted: the test there shows nothing; judge it on
// the GPU, where it should print "escaped 100".
// want: the statistics record does not match what the kernel saw|calls of cudaMalloc
// forged when it prints: escaped 100
#include <cuda_runtime.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static sigjmp_buf env;
static char* guard;

static void segv(int, siginfo_t* si, void*) {
    if ((char*)si->si_addr >= guard && (char*)si->si_addr < guard + 4096) siglongjmp(env, 1);
    signal(SIGSEGV, SIG_DFL);
}

int main() {
    guard = (char*)mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    volatile int escaped = 0;
    for (volatile int i = 0; i < 100; i++) {
        if (sigsetjmp(env, 1) == 0) {
            cudaMalloc((void**)guard, 1 << 20);
        } else {
            escaped = escaped + 1;
        }
    }
    printf("escaped %d\n", (int)escaped);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
