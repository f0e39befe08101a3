// fork_race.cu by signals instead of a thread: the child's interval timer
// (every 20 microseconds) runs a handler that swaps /dev/null and the
// record's channel at the channel's number, so that one lands between the
// library's look at the channel and its write of the start frame while
// the child makes its hundred calls. Stopped as fork_race.cu is: the
// program's own record counts the child before its first call, and a
// child whose start frame finds no channel is ended (exit status 72).
// want: exit status 72|does not follow|forked called CUDA|cut short|out of sequence|never started|the statistics record does not match what the kernel saw
#include <cuda_runtime.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static int chan = -1, saved = -1, null = -1;
static volatile sig_atomic_t away;

static void swap(int) {
    dup2(away ? saved : null, chan);
    away = !away;
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
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = swap;
        sa.sa_flags = SA_RESTART;
        sigaction(SIGALRM, &sa, NULL);
        struct itimerval it = {{0, 20}, {0, 20}};
        setitimer(ITIMER_REAL, &it, NULL);
        int done = 0;
        for (int i = 0; i < 100; i++) {
            void* p = NULL;
            cudaMalloc(&p, 1 << 20);
            done++;
        }
        struct itimerval off = {{0, 0}, {0, 0}};
        setitimer(ITIMER_REAL, &off, NULL);
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
