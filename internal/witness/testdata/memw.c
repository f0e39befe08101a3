// memw writes a byte of its own memory back over itself through a
// /proc/PID/mem file, by the way its first argument names, or (none)
// reads it and writes /dev/null: TestCountsProcMemWrites counts it.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static volatile char target = 42;

int main(int argc, char **argv) {
    const char *way = argc > 1 ? argv[1] : "none";
    char path[64], c = target;
    off_t at = (off_t)(unsigned long)&target;
    struct iovec iov = {&c, 1};
    int fd;
    if (!strcmp(way, "none")) {
        fd = open("/proc/self/mem", O_RDONLY);
        if (fd < 0 || pread(fd, &c, 1, at) != 1) return 2;
        int null = open("/dev/null", O_WRONLY);
        return write(null, &c, 1) == 1 ? 0 : 3;
    }
    if (!strcmp(way, "thread")) {
        fd = open("/proc/thread-self/mem", O_RDWR);
    } else if (!strcmp(way, "task")) {
        snprintf(path, sizeof path, "/proc/%d/task/%ld/mem", getpid(), syscall(SYS_gettid));
        fd = open(path, O_RDWR);
    } else if (!strcmp(way, "dirfd")) {
        int dir = open("/proc/self", O_RDONLY | O_DIRECTORY);
        fd = openat(dir, "mem", O_RDWR);
    } else if (!strcmp(way, "reopen")) {
        int first = open("/proc/self/mem", O_RDONLY);
        snprintf(path, sizeof path, "/proc/self/fd/%d", first);
        fd = open(path, O_RDWR);
    } else {
        fd = dup(open("/proc/self/mem", O_RDWR));
    }
    if (fd < 0) return 2;
    ssize_t n;
    if (!strcmp(way, "writev")) {
        lseek(fd, at, SEEK_SET);
        n = writev(fd, &iov, 1);
    } else if (!strcmp(way, "pwritev")) {
        n = pwritev(fd, &iov, 1, at);
    } else if (!strcmp(way, "pwritev2")) {
        n = pwritev2(fd, &iov, 1, at, 0);
    } else if (!strcmp(way, "write")) {
        lseek(fd, at, SEEK_SET);
        n = write(fd, &c, 1);
    } else {
        n = pwrite(fd, &c, 1, at);
    }
    return n == 1 ? 0 : 4;
}
