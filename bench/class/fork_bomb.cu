// Hostile: forks without end, each child leaving the process group.
#include <cstdio>
#include <unistd.h>
int main() {
    printf("12 iterations on 4 streams\n");
    fflush(stdout);
    for (;;) {
        pid_t p = fork();
        if (p == 0) setsid();
    }
}
