// fork_work.cu with the child's record kept from the grader by the
// channel's own settings: the child makes the record's socket
// non-blocking (O_NONBLOCK, which every process of the run shares) with
// the smallest send buffer (SO_SNDBUF), so that a frame that meets a full
// buffer fails with EAGAIN. Before, the library's write gave the channel
// up there, and a child whose start frame met it did its hundred calls
// with no record (the grader saw no child). The library's writes now wait
// for room (ppoll): the child's record arrives, and a run whose child
// called CUDA is judged as fork_work.cu is.
// want: forked called CUDA|the statistics record does not match what the kernel saw
#include <cuda_runtime.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int main() {
    pid_t pid = fork();
    if (pid == 0) {
        for (int fd = 3; fd < 65536; fd++) {
            struct stat st;
            if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
            int one = 1;
            setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &one, sizeof one);
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
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
