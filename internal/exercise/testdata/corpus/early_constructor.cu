// Code that runs first, as a program can have it: a constructor of its
// own (.init_array). It looks for the key where the library took it from
// (the environment, /proc/self/environ) to sign a record of its own. The
// loader runs the program's constructors after the preloaded library's,
// which has taken the key out and wiped it by then: nothing is found, and
// the record is the library's.
// want: cudaMalloc was called 0 times
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "forge.h"

extern char** environ;
static char key[80];
static int fd = -1;

__attribute__((constructor)) static void first() {
    for (char** e = environ; *e != NULL; e++) {
        if (strncmp(*e, "LESSONS_STATS_KEY=", 18) == 0) strncpy(key, *e + 18, sizeof key - 1);
        if (strncmp(*e, "LESSONS_STATS_FD=", 17) == 0) fd = atoi(*e + 17);
    }
    char buf[65536];
    int f = open("/proc/self/environ", O_RDONLY);
    ssize_t n = f >= 0 ? read(f, buf, sizeof buf - 1) : 0;
    for (ssize_t i = 0; i + 18 < n; i++)
        if (memcmp(buf + i, "LESSONS_STATS_KEY=", 18) == 0 && buf[i + 18] != '\0') strncpy(key, buf + i + 18, sizeof key - 1);
    if (f >= 0) close(f);
}

int main() {
    uint8_t k[32];
    if (fd >= 0 && forge::key(key, k)) forge::send(fd, k);
    printf("one allocation asked for\n");
    return 0;
}
