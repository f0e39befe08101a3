// fork_work.cu with the child's frames taken out of the record's channel
// before the grader read them: the program opened the pipe again, for
// reading, through /proc/self/fd (a pipe's magic link opens the pipe
// itself, for a process of the user that made it: the plain runner's, a
// grader that is not root), and its threads blocked in read were woken by
// each frame the child wrote, mostly before the grader's reader, which
// waits in epoll. The grader saw no child (two runs in three here), and
// the parent's record claimed one cudaMalloc: no knowledge of the
// library's build, no memory written. The channel is now one of a pair
// of connected sockets: its magic link opens nothing (exit status 73),
// and the program's end reads nothing of what it writes.
// want: exit status 73|forked called CUDA|out of sequence|never started|cut short|the statistics record does not match what the kernel saw
#include <cuda_runtime.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int readEnd = -1;

static void* steal(void*) {
    static char buf[1 << 16];
    for (;;)
        if (read(readEnd, buf, sizeof buf) <= 0) return NULL;
}

int main() {
    for (int fd = 4095; fd >= 3 && readEnd < 0; fd--) {
        struct stat st;
        if (fstat(fd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        readEnd = open(path, O_RDONLY | O_CLOEXEC);
    }
    if (readEnd < 0) return 73;
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, steal, NULL);
    usleep(20000);
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; i < 100; i++) {
            void* p = NULL;
            cudaMalloc(&p, 1 << 20);
        }
        return 0;
    }
    waitpid(pid, NULL, 0);
    usleep(50000);
    for (int i = 0; i < 4; i++) pthread_cancel(t[i]);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    close(readEnd);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
