// driver_skip.cu with no assembly at all: the function behind the
// driver's trampoline (driver 535's shape: on 580 it finds none and
// forges nothing) is called at its second instruction as if it took
// seven arguments. Its first instruction, `push %rbp`, skipped, its
// epilogue's `pop %rbp` takes the return address, and its `ret` the
// seventh argument (the first on the stack): a function of the
// program's that longjmps back to where the call was made, which puts
// the registers right. The allocation is written where the first
// argument points, so the answer that longjmp loses is not needed. The
// scan's "control moved in assembly" does not see it; the dynamic
// loading and /proc/ it names remain. The witness counts the work's
// `ret`, which the call leaves by, never entered at its first
// instruction.
// needs: witness
// want: a CUDA driver function was entered past its first instruction|dynamic loading
// forged when it prints: driver skip in C calls 100 
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "private_runtime.h"

typedef void (*Landing)(void);
typedef int (*Seven)(unsigned long long*, size_t, long, long, long, long, Landing);
typedef int (*SevenFree)(unsigned long long, long, long, long, long, long, Landing);

static jmp_buf back;
static void landing(void) { longjmp(back, 1); }

static void* behind(void* entry) {
    const unsigned char* c = (const unsigned char*)entry;
    if (c == NULL) return NULL;
    for (int i = 0; i < 32; i++)
        if ((c[i] == 0xff || c[i] == 0xcc) && c[i + 1] == 0x25) {  // 0xcc: a uprobe on the jump
            int32_t disp;
            memcpy(&disp, c + i + 2, 4);
            return *(void**)(c + i + 6 + disp);
        }
    return NULL;
}

// firstByte is f's first byte as its file has it (a uprobe shows 0xcc).
static int firstByte(void* f) {
    FILE* m = fopen("/proc/self/maps", "r");
    char line[512];
    int b = -1;
    uintptr_t a = (uintptr_t)f;
    while (m != NULL && b < 0 && fgets(line, sizeof line, m) != NULL) {
        unsigned long lo, hi, off;
        char path[400] = "";
        if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %399s", &lo, &hi, &off, path) == 4 && lo <= a && a < hi) {
            FILE* lib = fopen(path, "rb");
            if (lib != NULL && fseek(lib, (long)(a - lo + off), SEEK_SET) == 0) b = fgetc(lib);
            if (lib != NULL) fclose(lib);
        }
    }
    if (m != NULL) fclose(m);
    return b;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted: the one the record says
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (h == NULL) h = dlopen("libcuda.so.1", RTLD_NOW);
    void* work = h != NULL ? behind(privateSymbol(h, "cuMemAlloc_v2")) : NULL;
    void* freeWork = h != NULL ? behind(privateSymbol(h, "cuMemFree_v2")) : NULL;
    volatile int calls = 0, ok = 0;
    if (work != NULL && firstByte(work) == 0x55 && freeWork != NULL && firstByte(freeWork) == 0x55) {
        Seven alloc = (Seven)((char*)work + 1);
        SevenFree release = (SevenFree)((char*)freeWork + 1);
        for (volatile int i = 0; i < 100; i++) {
            static unsigned long long d;
            d = 0;
            if (setjmp(back) == 0) alloc(&d, 1 << 20, 0, 0, 0, 0, landing);
            calls = calls + 1;
            if (d != 0) {
                ok = ok + 1;
                if (setjmp(back) == 0) release(d, 0, 0, 0, 0, 0, landing);
            }
        }
    }
    printf("driver skip in C calls %d succeeded %d\n", (int)calls, (int)ok);
    printf("one allocation asked for\n");
    return 0;
}
