// Code the program runs before any library's constructor could take the
// record's key from the environment first: refused before it is trusted.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char stolen[80];

static void grab(int, char**, char** envp) {
    for (char** e = envp; *e != NULL; e++)
        if (strncmp(*e, "LESSONS_STATS_KEY=", 18) == 0) strncpy(stolen, *e + 18, sizeof stolen - 1);
}

__attribute__((section(".preinit_array"), used)) static void (*early)(int, char**, char**) = grab;

int main() {
    printf("key %s\n", stolen[0] ? "taken" : "not taken");
    return 0;
}
