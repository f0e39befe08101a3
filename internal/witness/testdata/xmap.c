// xmap maps a file executable: one older than the run (old: the C
// library, or the file its argument names: its own, /proc/self/exe, is
// counted), one it writes now (new: in the folder its argument names), or
// a memfd (memfd); TestCountsWrittenMappings counts the last two.
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv) {
    const char *way = argc > 1 ? argv[1] : "old";
    int fd;
    char path[4096];
    // Past the coarse clock's tick of the exec (a ctime is stamped by
    // it): what is written within it may be missed (written.go).
    if (!strcmp(way, "new")) usleep(20000);
    if (!strcmp(way, "old")) {
        fd = open(argc > 2 ? argv[2] : "/bin/sh", O_RDONLY);
    } else if (!strcmp(way, "memfd")) {
        fd = memfd_create("x", 0);
    } else {
        strncpy(path, argc > 2 ? argv[2] : "/tmp", sizeof path - 8);
        strcat(path, "/xmapf");
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0700);
    }
    if (fd < 0) return 2;
    if (strcmp(way, "old")) {
        static char page[4096];
        if (write(fd, page, sizeof page) != sizeof page) return 3;
    }
    void *p = mmap(0, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) return 4;
    munmap(p, 4096);
    return 0;
}
