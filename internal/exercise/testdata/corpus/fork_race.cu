// fork_work.cu with the child's record sent nowhere by a race: a second
// thread of the child swaps /dev/null and the record's channel at the
// channel's number over and over, while the first makes the hundred
// calls. When the library's look at the channel before the first call
// (fork_close.cu's rule) found it, and its write of the start frame went
// to /dev/null (or found it gone), the child went on silent and the
// grader saw no child: four runs of eight passed with main's library
// wherever the witness was off (signal_swap.cu three of eight). Now the program's own record counts, in memory shared with
// its children, each one that called CUDA (before its call), and a child
// whose start frame finds no channel is ended (exit status 72), its mark
// sent to the copy: a child counted but never heard from fails the run.
// want: exit status 72|does not follow|forked called CUDA|cut short|out of sequence|never started|the statistics record does not match what the kernel saw
#include <cuda_runtime.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
    pid_t pid = fork();
    if (pid == 0) {
        for (int fd = 3; fd < 65536 && chan < 0; fd++) {
            struct stat st;
            if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode)) chan = fd;
        }
        saved = dup(chan);
        null = open("/dev/null", O_WRONLY);
        pthread_t t;
        pthread_create(&t, NULL, swapper, NULL);
        int done = 0;
        for (int i = 0; i < 100; i++) {
            void* p = NULL;
            cudaMalloc(&p, 1 << 20);
            done++;
        }
        stop = 1;
        pthread_join(t, NULL);
        dup2(null, chan);  // the rest of the record, if any, nowhere
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
