// fork_work.cu with the child's record refused by the channel itself: the
// child ignores SIGPIPE and shuts the record's socket down for writing
// (shutdown(SHUT_WR): a socket's, where a pipe had none), so that every
// frame after fails with EPIPE. Before, the library's write gave the
// channel up there and the child did its hundred calls with no record.
// A process whose frame the channel refuses is now ended there (exit
// status 72), before its calls; the program's own end frame is refused
// too (its SIGPIPE kills it), so its record is cut short.
// want: killed by signal 13|exit status 72|cut short|forked called CUDA|the statistics record does not match what the kernel saw
#include <cuda_runtime.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int main() {
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGPIPE, SIG_IGN);
        for (int fd = 3; fd < 65536; fd++) {
            struct stat st;
            if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode)) shutdown(fd, SHUT_WR);
        }
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
