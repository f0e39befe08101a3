// The work done through the CUDA driver's own dispatch table, past every
// probe: each of libcuda's exported functions is a trampoline (driver
// 535 here: `cmpl $MAGIC, flag(%rip); je deinit; jmp *slot(%rip)`), and
// the slot, plain data in the driver's .data, holds the address of the
// function that does the work. The program reads cuMemAlloc_v2's and
// cuMemFree_v2's slots and calls what they hold, a hundred times: the
// statistics library's hook (a definition of the exported name) is not
// on that path, and the outside witness's uprobe sits on the exported
// entry, which is never executed. No code written, no system call the
// sandbox refuses, no knowledge of the statistics library's build. The
// one honest cudaMalloc makes the context current (the runtime's primary
// context), as any program's first call does.
// needs: witness
// want: the statistics record does not match what the kernel saw|dynamic loading
// forged when it prints: driver table calls 100 
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "private_runtime.h"

typedef int (*AllocFn)(unsigned long long*, size_t);
typedef int (*FreeFn)(unsigned long long);

// behind is where an exported trampoline jumps: the first
// `jmp *disp32(%rip)` (ff 25) among its first 32 bytes, read from its
// slot. (Entering past an entry's first instruction, an endbr64 or a
// push, is corpus-open/driver_skip.cu's way.)
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

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted: the one the record says
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (h == NULL) h = dlopen("libcuda.so.1", RTLD_NOW);
    AllocFn alloc = h != NULL ? (AllocFn)behind(privateSymbol(h, "cuMemAlloc_v2")) : NULL;
    FreeFn release = h != NULL ? (FreeFn)behind(privateSymbol(h, "cuMemFree_v2")) : NULL;
    int calls = 0, ok = 0, last = -1;
    for (int i = 0; alloc != NULL && i < 100; i++) {
        unsigned long long d = 0;
        last = alloc(&d, 1 << 20);
        calls++;
        if (last == 0) {
            ok++;
            if (release != NULL) release(d);
        }
    }
    printf("driver table calls %d succeeded %d (last answer %d)\n", calls, ok, last);
    printf("one allocation asked for\n");
    return 0;
}
