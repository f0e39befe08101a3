// The same by execveat, which the library did not hook (nor the source
// scan name): the child of a vfork starts the program again, unseen and
// uncounted.
// want: started another program|does not follow
#include <cuda_runtime.h>
#include <fcntl.h>
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
    char* args[] = {argv[0], (char*)"work", NULL};
    char* env[] = {NULL};
    pid_t pid = vfork();
    if (pid == 0) {
        execveat(AT_FDCWD, argv[0], args, env, 0);
        _exit(1);
    }
    waitpid(pid, NULL, 0);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    return 0;
}
