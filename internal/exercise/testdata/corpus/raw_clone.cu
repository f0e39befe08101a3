// The work done in a child made by clone, not fork: no atfork handler
// runs, so the child keeps its parent's identity in the library and its
// record was never sent; the child does the work its own way (a hundred
// cudaMalloc), unseen, and the program's own record claims one.
// want: does not follow
#include <cuda_runtime.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

static char stack[1 << 20];

static int work(void*) {
    for (int i = 0; i < 100; i++) {
        void* p = NULL;
        cudaMalloc(&p, 1 << 20);
    }
    printf("one allocation asked for\n");
    fflush(stdout);
    return 0;
}

int main() {
    int pid = clone(work, stack + sizeof stack, SIGCHLD, NULL);
    if (pid > 0) waitpid(pid, NULL, 0);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    return 0;
}
