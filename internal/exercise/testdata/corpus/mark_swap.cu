// Descriptor forgery around raw_clone.cu: the program finds the record's
// pipe among its descriptors, keeps a copy, puts /dev/null in its place
// while a child made by clone (which the library does not follow) does
// the work (a hundred cudaMalloc), so that the mark that would fail the
// run goes nowhere, then puts the pipe back. No frame of the program's
// own was due meanwhile, so none is missing; its record claims one.
// want: does not follow|channel
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char stack[1 << 20];

static int work(void*) {
    for (int i = 0; i < 100; i++) {
        void* p = NULL;
        cudaMalloc(&p, 1 << 20);
    }
    return 0;
}

int main() {
    void* p = NULL;
    cudaFree(NULL);
    int pipeFd = -1;
    for (int fd = 3; fd < 1024; fd++) {
        struct stat st;
        if (fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) pipeFd = fd;
    }
    int saved = pipeFd >= 0 ? dup(pipeFd) : -1;
    int null = open("/dev/null", O_WRONLY);
    if (pipeFd >= 0) dup2(null, pipeFd);
    int pid = clone(work, stack + sizeof stack, SIGCHLD, NULL);
    if (pid > 0) waitpid(pid, NULL, 0);
    if (pipeFd >= 0) dup2(saved, pipeFd);
    close(saved);
    close(null);
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
