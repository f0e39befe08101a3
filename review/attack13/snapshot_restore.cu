// memory_patch.cu without knowing anything of the record: every writable
// page of the statistics library (found in /proc/self/maps by its file
// name, and the anonymous mappings right after it) copied before a
// hundred cudaMalloc and copied back after, byte for byte, so that the
// library's counts (wherever they are) are what they were before; then
// the one call the record is to show. No ELF structure read, no magic
// word, no layout: an undo of the library's writes.
// needs: witness
// want: the statistics record does not match what the kernel saw|/proc/
// forged when it prints: restored
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct Region { char* a; size_t n; char* copy; };

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
            r[n].a = (char*)a;
            r[n].n = b - a;
            r[n].copy = (char*)malloc(b - a);
            n++;
        }
        after = lib || (after && anon);
    }
    if (f) fclose(f);
    for (int i = 0; i < n; i++) memcpy(r[i].copy, r[i].a, r[i].n);
    for (int i = 0; i < 100; i++) {
        void* p = NULL;
        cudaMalloc(&p, 1 << 20);
    }
    for (int i = 0; i < n; i++) memcpy(r[i].a, r[i].copy, r[i].n);
    printf("restored %d regions\n", n);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
