// The work done in a child made by a plain fork, before the program's
// first CUDA call (so the child may use the GPU): the library follows the
// child and its record counts the hundred cudaMalloc, but as the child's,
// and a check of a statistic with no scope read the program's own process
// alone, whose record claims one. The witness agreed: it compares the
// program's calls and its children's together.
// want: forked called CUDA
#include <cuda_runtime.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main() {
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; i < 100; i++) {
            void* p = NULL;
            cudaMalloc(&p, 1 << 20);
        }
        printf("one allocation asked for\n");
        return 0;
    }
    waitpid(pid, NULL, 0);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    return 0;
}
