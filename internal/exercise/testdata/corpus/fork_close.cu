// fork_work.cu with the child's record kept from the grader: the child
// closes every descriptor above 2 (the record's pipe among them) before
// its first CUDA call, so the library, finding no pipe, sent nothing;
// the grader saw no child that called CUDA, and the parent's record
// claimed one. Before, it passed wherever the witness was off. A process
// whose record's pipe is gone when it first calls CUDA is now ended
// there (exit status 72), before the call, its mark sent wherever a copy
// of the pipe is left.
// want: exit status 72|does not follow|forked called CUDA|the statistics record does not match what the kernel saw
#include <cuda_runtime.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main() {
    pid_t pid = fork();
    if (pid == 0) {
        for (int fd = 3; fd < 65536; fd++) close(fd);
        int done = 0;
        for (int i = 0; i < 100; i++) {
            void* p = NULL;
            cudaMalloc(&p, 1 << 20);
            done++;
        }
        return done == 100 ? 0 : 1;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 72;
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
