#include <cstdio>
#include <vector>
#include <set>
#include <algorithm>
#include "cuda_runtime.h"
std::set<cudaEvent_t> g_live, g_busy; int g_next = 0;
#define __global__
#include POOL
int main(int argc, char** argv) {
    int blocks = atoi(argv[1]);
    std::vector<size_t> classes = {1000, 3000, 10000};
    BlockPool pool; if (pool.init(classes, blocks)) { puts("init failed"); return 1; }
    cudaStream_t s = (cudaStream_t)1, busy = (cudaStream_t)9;
    int bad = 0;
    for (int round = 0; round < 3; round++) {
        std::vector<void*> got;
        for (size_t c : classes) for (int i = 0; i < blocks; i++) { void* p = pool.allocate(c); if (!p) { printf("round %d: nullptr for %zu at %d\n", round, c, i); return 1; } got.push_back(p); }
        std::set<void*> u(got.begin(), got.end()); if ((int)u.size() != (int)got.size()) { printf("round %d: duplicates\n", round); bad++; }
        for (size_t c : classes) if (pool.allocate(c)) { printf("round %d: extra block\n", round); bad++; }
        // half busy, half done
        for (size_t i = 0; i < got.size(); i++) if (!pool.deallocate(got[i], i % 2 ? busy : s)) { printf("refused\n"); return 1; }
        if (pool.deallocate(got[0], s)) { puts("double free accepted"); bad++; }
        int n = 0; std::vector<void*> again; fflush(stdout);
        for (size_t c : classes) for (void* p; (p = pool.allocate(c)) && n < 1000; ) { again.push_back(p); n++; }
        int inuse = 0; for (void* p : again) for (size_t i = 1; i < got.size(); i += 2) inuse += p == got[i];
        printf("round %d: %d handed while half busy, %d of them busy\n", round, n, inuse);
        g_busy.clear();
        for (void* p : again) pool.deallocate(p, s);
    }
    pool.destroy();
    printf("events left %zu bad %d\n", g_live.size(), bad);
}
