// A second program the library does not follow: the program starts itself
// again with posix_spawnp (by argv[0], never naming /proc), its
// environment without LD_PRELOAD, and the copy does the work its own way
// (a hundred cudaMalloc where the exercise wants one), unseen. The
// program's own record says what honest.cu's does: one cudaMalloc. The
// library counts the spawn (execs 1), which no check of the spec names.
// want: started another program
#include <cuda_runtime.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

int main(int argc, char** argv) {
    if (argc > 1 && strcmp(argv[1], "work") == 0) {
        for (int i = 0; i < 100; i++) {
            void* p = NULL;
            cudaMalloc(&p, 1 << 20);
        }
        printf("one allocation asked for\n");
        return 0;
    }
    char* env[] = {(char*)"PATH=/usr/bin:/bin", NULL};
    char* args[] = {argv[0], (char*)"work", NULL};
    pid_t pid;
    if (posix_spawnp(&pid, argv[0], NULL, NULL, args, env) == 0) waitpid(pid, NULL, 0);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    return 0;
}
