// snapshot_restore.cu (an undo of every write of the statistics library,
// which failed: the frame number went back too, "out of sequence"), made
// selective: the library's writable pages (found in /proc/self/maps by
// its file name, and the anonymous mappings right after it) copied
// before a hundred cudaMalloc, and afterwards only the 8-byte words that
// grew by exactly 100 (the count of calls) or by 100 MiB (the bytes
// asked for) put back; the frame numbers, the clocks and the rest stay as
// the library left them. Then the one call the record is to show. No
// ELF structure, no magic word, no layout: the record found by its diff.
// needs: witness
// want: the statistics record does not match what the kernel saw|/proc/
// forged when it prints: put back
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct Region { uint64_t* a; size_t n; uint64_t* copy; };

int main() {
    Region r[64];
    int n = 0;
    FILE* f = fopen("/proc/self/maps", "r");
    char line[512];
    bool after = false;
    while (f && fgets(line, sizeof line, f) && n < 64) {
        unsigned long a, b;
        char perm[8];
        if (sscanf(line, "%lx-%lx %7s", &a, &b, perm) != 3) continue;
        bool lib = strstr(line, "liballocstats") != NULL;
        bool anon = strchr(line, '/') == NULL && strchr(line, '[') == NULL;
        if ((lib || (after && anon)) && perm[0] == 'r' && perm[1] == 'w' && b - a <= (64u << 20)) {
            r[n].a = (uint64_t*)a;
            r[n].n = (b - a) / 8;
            r[n].copy = (uint64_t*)malloc(b - a);
            n++;
        }
        after = lib || (after && anon);
    }
    if (f) fclose(f);
    for (int i = 0; i < n; i++) memcpy(r[i].copy, r[i].a, r[i].n * 8);
    for (int i = 0; i < 100; i++) {
        void* p = NULL;
        cudaMalloc(&p, 1 << 20);
    }
    int put = 0;
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < r[i].n; k++) {
            uint64_t d = r[i].a[k] - r[i].copy[k];
            if (d == 100 || d == (100ull << 20)) { r[i].a[k] = r[i].copy[k]; put++; }
        }
    printf("put back %d words\n", put);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
