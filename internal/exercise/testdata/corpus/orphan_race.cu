// fork_race.cu by a child that waits for its parent's end: forked before
// any CUDA call, it waits until the program's own process has exited (its
// end frame out, with its count of the children that called CUDA, which
// does not hold this one yet), then makes its hundred calls while a
// second thread swaps /dev/null and the channel at the channel's number,
// so that its start frame goes nowhere. The program's own process sets a
// mark in the memory it shares with its children as it sends its end
// frame; a child whose first call comes after it is ended there (exit
// status 72), its mark sent to the copy.
// want: does not follow|forked called CUDA|cut short|out of sequence|never started|the statistics record does not match what the kernel saw
#include <cuda_runtime.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static int chan = -1, saved = -1, null = -1;
static volatile int stop;

static void* swapper(void*) {
    while (!stop) {
        dup2(null, chan);
        dup2(saved, chan);
    }
    return NULL;
}

int main() {
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        for (int fd = 3; fd < 65536 && chan < 0; fd++) {
            struct stat st;
            if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode)) chan = fd;
        }
        saved = dup(chan);
        null = open("/dev/null", O_WRONLY);
        setsid();
        while (getppid() == parent) {}
        pthread_t t;
        pthread_create(&t, NULL, swapper, NULL);
        for (int i = 0; i < 100; i++) {
            void* p = NULL;
            cudaMalloc(&p, 1 << 20);
        }
        stop = 1;
        pthread_join(t, NULL);
        dup2(null, chan);
        return 0;
    }
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
