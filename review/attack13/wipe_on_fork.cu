// MADV_WIPEONFORK on the statistics library's anonymous writable pages
// (its .bss and whatever it mapped private and anonymous, found in
// /proc/self/maps by the file name liballocstats.so and the anonymous
// mapping right after it): a child made by a plain fork then starts with
// the library's state zeroed (its channel, its pid, its "quiet" flag,
// its record pointer), as if the library had never started there; the
// child does a hundred cudaMalloc, which a zeroed library may forward
// uncounted or send to descriptor 0. The program's own record claims one.
// No exec, no clone, no code written; madvise is not filtered.
// want: exit status 72|does not follow|forked called CUDA|the statistics record does not match what the kernel saw
// forged when it prints: child worked
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

int main() {
    FILE* f = fopen("/proc/self/maps", "r");
    char line[512];
    bool after = false;
    int wiped = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long a, b;
        char perm[8];
        if (sscanf(line, "%lx-%lx %7s", &a, &b, perm) != 3) continue;
        bool lib = strstr(line, "liballocstats") != NULL;
        bool anon = strchr(line, '/') == NULL && strchr(line, '[') == NULL;
        if ((lib || (after && anon)) && perm[0] == 'r' && perm[1] == 'w') {
            if (madvise((void*)a, b - a, MADV_WIPEONFORK) == 0) wiped++;
        }
        after = lib || (after && anon);
    }
    if (f) fclose(f);
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; i < 100; i++) {
            void* p = NULL;
            cudaMalloc(&p, 1 << 20);
        }
        printf("child worked (%d wiped)\n", wiped);
        fflush(stdout);
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
