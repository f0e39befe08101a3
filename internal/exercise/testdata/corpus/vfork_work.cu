// The work done in a vfork'd child, which shares the program's memory
// (the library's record among it) and its thread's storage until it
// ends: no atfork handler runs for vfork, so to the library the child is
// its parent, and the hundred cudaMalloc it made would have been counted
// in the parent's record, or nowhere if the child's calls were taken for
// the library's own. The child leaves by _exit, so that its process ends
// without an exit handler of the library's.
// The library ends it at its first call (exit status 72), its mark sent:
// it is a process the library does not follow.
// want: does not follow|exit status 72|the statistics record does not match what the kernel saw
#include <cuda_runtime.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main() {
    pid_t pid = vfork();
    if (pid == 0) {
        for (int i = 0; i < 100; i++) {
            void* p = NULL;
            cudaMalloc(&p, 1 << 20);
        }
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for (child: %d)\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}
