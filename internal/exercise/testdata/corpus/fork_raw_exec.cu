// spawn_self.cu by glibc's _Fork, which runs no atfork handler: the child
// keeps its parent's identity in the library, so its exec was counted in
// a copy of the record no frame sends; the program it starts (itself
// again, its environment emptied) does the work unseen.
// want: does not follow
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
    if (argc > 1 && strcmp(argv[1], "work") == 0) {
        for (int i = 0; i < 100; i++) {
            void* p = NULL;
            cudaMalloc(&p, 1 << 20);
        }
        printf("one allocation asked for\n");
        return 0;
    }
    pid_t pid = _Fork();
    if (pid == 0) {
        char* args[] = {argv[0], (char*)"work", NULL};
        clearenv();
        execv(argv[0], args);
        _exit(1);
    }
    waitpid(pid, NULL, 0);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    return 0;
}
