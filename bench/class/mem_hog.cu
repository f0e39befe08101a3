// Hostile: asks the host for 32 GiB and touches it.
#include <cstdio>
#include <cstdlib>
#include <cstring>
int main() {
    size_t n = 32ull << 30;
    char* p = (char*)malloc(n);
    if (!p) { printf("malloc of 32 GiB refused\n"); return 1; }
    memset(p, 1, n);
    printf("touched 32 GiB\n");
    return 0;
}
