// getenv defined in top-level assembly (STT_NOTYPE): the statistics
// library's constructor asks it for the pipe and the key, and it keeps
// both and tells the library there is no key. The library sends nothing;
// the program signs a record of its own.
// want: the program defines getenv
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "forge.h"

extern char** __environ;
static char held[80];
static int heldFd = -1;

extern "C" __attribute__((used)) char* forgeGetenv(const char* name) {
    size_t n = 0;
    while (name[n] != '\0') n++;
    for (char** e = __environ; e != NULL && *e != NULL; e++) {
        if (strncmp(*e, name, n) != 0 || (*e)[n] != '=') continue;
        char* v = *e + n + 1;
        if (strcmp(name, "LESSONS_STATS_KEY") == 0) {
            strncpy(held, v, sizeof held - 1);
            return NULL;
        }
        if (strcmp(name, "LESSONS_STATS_FD") == 0) heldFd = atoi(v);
        return v;
    }
    return NULL;
}

__asm__(".globl getenv\ngetenv:\n\tjmp forgeGetenv\n");

int main() {
    uint8_t k[32];
    if (heldFd >= 0 && forge::key(held, k)) forge::send(heldFd, k);
    printf("one allocation asked for\n");
    return 0;
}
