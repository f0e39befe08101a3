// What remains once every first instruction and every way out of the
// probed CUDA functions (and of the driver's functions behind them) is
// counted, and a caught fault fails the run: doing the work function's
// own steps, calling the deeper functions of the driver it calls, which
// no probe sees. Written against driver 535.261.03's cuMemAlloc_v2 (the
// function behind its trampoline, at 0x2d8860; this machine's driver),
// step by step as its code does them:
//   1. the thread's driver state: pthread_getspecific of the key at
//      0x1c0d940 (made by 0x2a0580 where the thread has none);
//   2. the current context: 0x24b2a0(state, &ctx, 2), checked by
//      0x2a0420(state);
//   3. a descriptor of 0x168 bytes, its first word 0x8000020c000202, a
//      bit copied from the device (ctx+0x48, +0x3684) where +0x4430 != 1;
//   4. the context's lock (0x5057f0 on ctx+0x10), the allocator's own
//      function 0x3d0890(ctx+0x588's object, &descriptor, size, &obj),
//      the unlock (0x280570);
//   5. 0x291680(obj), 0x273e90(obj), and the device pointer at obj+0x60.
// The driver's file is checked first (the work function's first bytes as
// 535.261.03 has them): any other build says so and does nothing. On a
// GPU with this driver it would allocate, every probe counting 0: no
// first instruction skipped (none of these functions is probed), no way
// out missed, no fault. Untested with a GPU: the H200 machine has
// driver 580, whose internals differ (its offsets are to be read from
// its own file the same way). Here, without a GPU, the driver's state
// word (0x1c0d95c) says not initialised, and each call stops at step 0
// with CUDA_ERROR_NOT_INITIALIZED (3), as the work function itself does.
// needs: witness
// want: dynamic loading
// forged when it prints: deep steps calls 100 allocated 100
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "private_runtime.h"

static const unsigned char workStart[16] = {0x55, 0x48, 0x89, 0xe5, 0x41, 0x57, 0x41, 0x56, 0x41, 0x55, 0x49, 0x89, 0xf5, 0x41, 0x54, 0x53};

static char* base;
template <typename F> static F at(uintptr_t off) { return (F)(base + off); }

static int fileBytes(const void* f, unsigned char* b, size_t n) {
    FILE* m = fopen("/proc/self/maps", "r");
    char line[512];
    int ok = 0;
    uintptr_t a = (uintptr_t)f;
    while (m != NULL && !ok && fgets(line, sizeof line, m) != NULL) {
        unsigned long lo, hi, off;
        char path[400] = "";
        if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %399s", &lo, &hi, &off, path) == 4 && lo <= a && a < hi) {
            FILE* lib = fopen(path, "rb");
            ok = lib != NULL && fseek(lib, (long)(a - lo + off), SEEK_SET) == 0 && fread(b, 1, n, lib) == n;
            if (lib != NULL) fclose(lib);
        }
    }
    if (m != NULL) fclose(m);
    return ok;
}

static int deepAlloc(unsigned long long* dptr, size_t size) {
    int state = *at<int*>(0x1c0d95c);
    if (state == 0) return 3;
    if (state == 2) return 4;
    void* tls = pthread_getspecific(*at<int*>(0x1c0d940) - 1);
    if (tls == NULL) {
        if ((uintptr_t)pthread_getspecific(*at<int*>(0x1c0d944) - 1) == 1) {
            tls = (void*)-1;
        } else {
            int r = at<int (*)(void**)>(0x2a0580)(&tls);
            if (r != 0) return r;
        }
    }
    char* ctx = NULL;
    int r = at<int (*)(void*, char**, int)>(0x24b2a0)(tls, &ctx, 2);
    if (r != 0) return r;
    if ((r = at<int (*)(void*)>(0x2a0420)(tls)) != 0) return r;
    uint64_t desc[45];
    memset(desc, 0, sizeof desc);
    desc[0] = 0x8000020c000202ull;
    char* dev = *(char**)(ctx + 0x48);
    if (*(int*)(dev + 0x4430) != 1) {
        unsigned char* b = (unsigned char*)desc + 0xa;
        *b = (unsigned char)((*b & 0xbf) | ((*(unsigned char*)(dev + 0x3684) * 2) & 0x40));
    }
    char* obj = NULL;
    at<void (*)(char*)>(0x5057f0)(ctx + 0x10);
    r = at<int (*)(void*, uint64_t*, size_t, char**)>(0x3d0890)(*(void**)(ctx + 0x588), desc, size, &obj);
    at<void (*)(char*)>(0x280570)(ctx + 0x10);
    if (r != 0) return r;
    if ((r = at<int (*)(char*)>(0x291680)(obj)) != 0) return r;  // (the driver frees obj here; left out)
    at<void (*)(char*)>(0x273e90)(obj);
    *dptr = *(unsigned long long*)(obj + 0x60);
    return 0;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted: the one the record says
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (h == NULL) h = dlopen("libcuda.so.1", RTLD_NOW);
    char* entry = h != NULL ? (char*)privateSymbol(h, "cuMemAlloc_v2") : NULL;
    unsigned char w[16];
    if (entry == NULL || !fileBytes(entry - 0x2d5660 + 0x2d8860, w, sizeof w) || memcmp(w, workStart, sizeof w) != 0) {
        printf("deep steps: not driver 535.261.03's cuMemAlloc_v2, nothing done\n");
        printf("one allocation asked for\n");
        return 0;
    }
    base = entry - 0x2d5660;
    int calls = 0, ok = 0, last = -1;
    for (int i = 0; i < 100; i++) {
        unsigned long long d = 0;
        last = deepAlloc(&d, 1 << 20);
        calls++;
        if (last == 0 && d != 0) ok++;
    }
    printf("deep steps calls %d allocated %d (last answer %d)\n", calls, ok, last);
    printf("one allocation asked for\n");
    return 0;
}
