// A program that does no CUDA work (its forked children call cudaMalloc,
// which fails without a GPU), run with the real statistics library
// on a machine without a GPU: each mode tries one way to cut, forge or
// read the record's channel (internal/exercise/library_test.go).
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_runtime.h>

// pipes lists the descriptors of this process that are pipes or sockets: the
// record's channel, wherever the library put it.
static int pipes(int* out, int max) {
    int n = 0;
    DIR* d = opendir("/proc/self/fd");
    if (d == NULL) return 0;
    while (struct dirent* e = readdir(d)) {
        int fd = atoi(e->d_name);
        struct stat st;
        if (fd > 2 && fd != dirfd(d) && fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) && n < max) out[n++] = fd;
    }
    closedir(d);
    return n;
}

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "plain";
    // A pipe it inherited from whoever ran the tests (a CI script's, with
    // no reader left) must not end it: only the record's channel counts.
    signal(SIGPIPE, SIG_IGN);
    printf("mode %s\n", mode);
    fflush(stdout);
    int fds[64];
    int n = pipes(fds, 64);
    if (strcmp(mode, "exit") == 0) _exit(0);
    if (strcmp(mode, "quick") == 0) quick_exit(0);
    if (strcmp(mode, "forge") == 0) {
        // A frame's header with figures of its own, and no key to sign it.
        unsigned char f[1300] = {'L', 'S', 'F', '1', 2};
        f[16] = 0x90; f[17] = 0x04;
        if (write(3, f, sizeof f) < 0) printf("descriptor 3 is not open\n");
        for (int i = 0; i < n; i++) if (write(fds[i], f, sizeof f) == (ssize_t)sizeof f) printf("wrote to %d\n", fds[i]);
    }
    if (strcmp(mode, "dup2") == 0) {
        int null = open("/dev/null", O_WRONLY);
        for (int i = 0; i < n; i++) dup2(null, fds[i]);
        dup2(null, 3);
    }
    if (strcmp(mode, "close") == 0)
        for (int i = 0; i < n; i++) close(fds[i]);
    if (strcmp(mode, "key") == 0) {
        // The key must be gone from the environment and from its bytes.
        if (getenv("LESSONS_STATS_KEY") != NULL || getenv("LESSONS_STATS_FD") != NULL) printf("FOUND in getenv\n");
        FILE* e = fopen("/proc/self/environ", "r");
        static char buf[1 << 16];
        size_t len = e != NULL ? fread(buf, 1, sizeof buf, e) : 0;
        for (size_t i = 0; i + 18 <= len; i++)
            if (memcmp(buf + i, "LESSONS_STATS_KEY=", 18) == 0 && i + 18 < len && buf[i + 18] != 0) printf("FOUND in /proc/self/environ\n");
    }
    if (strcmp(mode, "fork") == 0) {
        // A child that exits normally runs the library's exit handler
        // too: it must not send frames of its own.
        pid_t pid = fork();
        if (pid == 0) exit(0);
        int status;
        waitpid(pid, &status, 0);
    }
    if (strcmp(mode, "forkquiet") == 0) {
        // A child that never calls CUDA and leaves by _exit (as children
        // often do after fork) sends nothing at all: no record cut short.
        pid_t pid = fork();
        if (pid == 0) _exit(0);
        int status;
        waitpid(pid, &status, 0);
    }
    if (strcmp(mode, "forkcuda") == 0 || strcmp(mode, "forkcuda_exit") == 0) {
        // A child that calls CUDA (which fails without a GPU, and is
        // counted all the same) sends a record of its own; one that then
        // leaves by _exit cuts its record short.
        pid_t pid = fork();
        if (pid == 0) {
            void* p = NULL;
            cudaMalloc(&p, 1 << 20);
            if (strcmp(mode, "forkcuda_exit") == 0) _exit(0);
            exit(0);
        }
        int status;
        waitpid(pid, &status, 0);
    }
    if (strcmp(mode, "forkexec") == 0) {
        // A child that becomes another program: its record ends at the
        // exec, saying so (the program it becomes is not followed).
        pid_t pid = fork();
        if (pid == 0) {
            execl("/bin/true", "true", (char*)NULL);
            _exit(127);
        }
        int status;
        waitpid(pid, &status, 0);
    }
    if (strcmp(mode, "system") == 0 && system("true") != 0) printf("system failed\n");
    if (strcmp(mode, "selfexec") == 0) {
        // The program replaces itself: its record is cut short.
        execl("/bin/true", "true", (char*)NULL);
        return 1;
    }
    if (strcmp(mode, "crash") == 0) raise(SIGSEGV);
    printf("%d pipes\n", n);
    return 0;
}
