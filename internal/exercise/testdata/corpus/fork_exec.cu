// The same by fork and execv, from a child that makes no CUDA call
// before its exec: the library reports the child's exec (execs 1 in its
// record), which no check of the spec named; the program it starts
// (itself again, with its environment emptied) does the work unseen.
// want: started another program
#include <cuda_runtime.h>
#include <stdio.h>
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
    pid_t pid = fork();
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
