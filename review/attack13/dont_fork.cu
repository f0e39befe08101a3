// MADV_DONTFORK on every writable mapping of the statistics library (its
// .data, .bss and anonymous pages after it): a plain fork's child has
// holes there. Its SIGSEGV handler maps a fresh zero page at each address
// the library touches and returns, so the library in the child runs on
// zeroed state (no channel, no pid, no shared count of children) while
// the child does a hundred cudaMalloc. The parent claims one.
// want: exit status 72|does not follow|forked called CUDA|the statistics record does not match what the kernel saw|exit status 139|signal
// forged when it prints: child worked
#include <cuda_runtime.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void fill(int, siginfo_t* si, void*) {
    unsigned long pg = (unsigned long)si->si_addr & ~4095UL;
    if (mmap((void*)pg, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) _exit(99);
}

int main() {
    FILE* f = fopen("/proc/self/maps", "r");
    char line[512];
    bool after = false;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long a, b;
        char perm[8];
        if (sscanf(line, "%lx-%lx %7s", &a, &b, perm) != 3) continue;
        bool lib = strstr(line, "liballocstats") != NULL;
        bool anon = strchr(line, '/') == NULL && strchr(line, '[') == NULL;
        if ((lib || (after && anon)) && perm[0] == 'r' && perm[1] == 'w') madvise((void*)a, b - a, MADV_DONTFORK);
        after = lib || (after && anon);
    }
    if (f) fclose(f);
    pid_t pid = fork();
    if (pid == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = fill;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigaction(SIGSEGV, &sa, NULL);
        for (int i = 0; i < 100; i++) {
            void* p = NULL;
            cudaMalloc(&p, 1 << 20);
        }
        printf("child worked\n");
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
