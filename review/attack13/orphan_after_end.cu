// The work done by a forked child after the program's end: the child,
// made before any CUDA call, waits (polling getppid) until its parent
// has exited, its end frame out, and only then makes a hundred
// cudaMalloc. Its first call comes after the parent's record ended, so
// the parent's count of children that called CUDA never saw it; if the
// grader stopped reading at the parent's end frame or exit, the child's
// frames go nowhere. after_end.cu and end_thread.cu did this in the
// program's own process; this one in another.
// want: exit status 72|does not follow|forked called CUDA|after|the statistics record does not match what the kernel saw
// forged when it prints: child worked
#include <cuda_runtime.h>
#include <stdio.h>
#include <unistd.h>

int main() {
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        while (getppid() == parent) usleep(1000);
        for (int i = 0; i < 100; i++) {
            void* p = NULL;
            cudaMalloc(&p, 1 << 20);
        }
        printf("child worked\n");
        fflush(stdout);
        _exit(0);
    }
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
