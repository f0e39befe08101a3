// A name the C++ runtime defines and calls itself, through its own PLT,
// while it starts (round 22): libstdc++'s start-up stores
// &std::future_category() in a variable of its old ABI
// (compatibility-c++0x.cc) before the statistics library's constructor
// runs (libstdc++ is a library the statistics library needs, so it
// starts first). The program defines std::future_category() itself (an
// asm label gives it the mangled name), hoping the loader finds the
// program's first and the runtime's own call reaches it while the key is
// still in the environment, to do then what gmon_start.cu does. The
// inspection holds the program's exports against the libraries' imports
// alone, and no library imports this name. It forges nothing: the linker
// exports a program's symbol only where a library it links imports the
// name (a definition in a library is not enough), so the name is not in
// the program's dynamic symbols and libstdc++'s call stays its own
// (tried on Ubuntu's ld 2.38 with nvcc 11.8). What stops it: the linker;
// one that got the name exported (-rdynamic, a flag of the spec's, never
// the student's) would be held by the inspection only if a library
// imported it.
// want: cudaMalloc was called 0 times
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "forge.h"

static char held[80];
static int kept = -1;
static void* category[4];

extern "C" const void* taken_category() __asm__("_ZSt15future_categoryv");
extern "C" const void* taken_category() {
    if (kept < 0) {
        const char* key = getenv("LESSONS_STATS_KEY");
        const char* chan = getenv("LESSONS_STATS_FD");
        int fd = chan != NULL ? atoi(chan) : -1;
        if (key != NULL) strncpy(held, key, sizeof held - 1);
        if (fd >= 0 && held[0] != '\0') {
            kept = dup(fd);
            int decoy[2];
            if (kept >= 0 && pipe(decoy) == 0) dup2(decoy[1], fd);
        }
    }
    return category;  // only stored by the old ABI's variable, never used
}

int main() {
    uint8_t k[32];
    if (kept >= 0 && forge::key(held, k)) forge::send(kept, k);
    printf("one allocation asked for\n");
    return 0;
}
