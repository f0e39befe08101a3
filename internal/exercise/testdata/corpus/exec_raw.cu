// spawn_self.cu by a raw system call: a forked child (which made no CUDA
// call) starts the program again with syscall(SYS_execve), which no hook
// of the statistics library sees, its environment without LD_PRELOAD; the
// copy does the work its own way (a hundred cudaMalloc), unseen, while
// the program's own record says what honest.cu's does and counts no
// program started. Where the exec is refused, it stops with exit status 71.
// want: exit status 71|the statistics record does not match what the kernel saw
// in the sandbox: exit status 71
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
    if (argc > 1 && strcmp(argv[1], "work") == 0) {
        for (int i = 0; i < 100; i++) {
            void* p = NULL;
            cudaMalloc(&p, 1 << 20);
        }
        return 0;
    }
    pid_t pid = fork();
    if (pid == 0) {
        char* env[] = {(char*)"PATH=/usr/bin:/bin", NULL};
        char* args[] = {argv[0], (char*)"work", NULL};
        syscall(SYS_execve, argv[0], args, env);
        _exit(71);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 71) return 71;
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
