// driver_skip.cu in driver 580's shape. There each exported entry is a
// small function (`push %rbp; mov %rsp,%rbp; ...; cmpl $MAGIC,
// flag(%rip); je deinit; call *slot(%rip); ...; leave; ret`) that calls
// the function doing the work through a slot of the driver's data. The
// program reads cuMemAlloc_v2's and cuMemFree_v2's `call *slot(%rip)`
// (ff 15) from the driver's file, the function each slot holds from the
// driver's memory, and calls it straight, past its first instruction
// (done by a naked function of the program's own, which jumps to the
// second): neither the entry nor the work's first instruction runs. The
// witness probes the function behind the slot and each of its ways out:
// the calls leave by its `ret`, counted, and were never counted
// entering. On driver 535 (trampolines: `jmp *slot`, no call) it finds
// no slot and forges nothing; driver_skip.cu is that driver's.
// needs: witness
// want: a CUDA driver function was entered past its first instruction|dynamic loading
// forged when it prints: driver skip 580 calls 100 
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "private_runtime.h"

typedef int (*AllocFn)(unsigned long long*, size_t);
typedef int (*FreeFn)(unsigned long long);

extern "C" void* skip580_to;  // where the stubs go on
void* skip580_to;

// The first instruction, done here; the rest, there.
extern "C" __attribute__((naked)) void skip580_push_rbp() { __asm__ volatile("push %rbp\n\tjmp *skip580_to(%rip)"); }
extern "C" __attribute__((naked)) void skip580_push_r15() { __asm__ volatile("push %r15\n\tjmp *skip580_to(%rip)"); }
extern "C" __attribute__((naked)) void skip580_push_r14() { __asm__ volatile("push %r14\n\tjmp *skip580_to(%rip)"); }
extern "C" __attribute__((naked)) void skip580_push_r12() { __asm__ volatile("push %r12\n\tjmp *skip580_to(%rip)"); }
extern "C" __attribute__((naked)) void skip580_push_rbx() { __asm__ volatile("push %rbx\n\tjmp *skip580_to(%rip)"); }
extern "C" __attribute__((naked)) void skip580_nothing() { __asm__ volatile("jmp *skip580_to(%rip)"); }

// fileBytes copies n bytes at f as the driver's file has them: where a
// uprobe sits, the process reads its breakpoint (0xcc) instead.
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

// called is what the slot of the entry's first `call *disp32(%rip)`
// holds, or null where the entry has none among its first 64 bytes.
static void* called(void* entry) {
    unsigned char c[64];
    if (entry == NULL || !fileBytes(entry, c, sizeof c)) return NULL;
    for (int i = 0; i + 6 <= (int)sizeof c; i++)
        if (c[i] == 0xff && c[i + 1] == 0x15) {
            int32_t disp;
            memcpy(&disp, c + i + 2, 4);
            return *(void**)((char*)entry + i + 6 + disp);
        }
    return NULL;
}

// past is a stub that does f's first instruction and goes on at its
// second (through skip580_to), or null where that instruction is not
// one of these.
static void* past(void* f, void** to) {
    unsigned char c[4];
    if (f == NULL || !fileBytes(f, c, sizeof c)) return NULL;
    if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa) { *to = (char*)f + 4; return (void*)skip580_nothing; }
    if (c[0] == 0x55) { *to = (char*)f + 1; return (void*)skip580_push_rbp; }
    if (c[0] == 0x53) { *to = (char*)f + 1; return (void*)skip580_push_rbx; }
    if (c[0] == 0x41 && c[1] == 0x57) { *to = (char*)f + 2; return (void*)skip580_push_r15; }
    if (c[0] == 0x41 && c[1] == 0x56) { *to = (char*)f + 2; return (void*)skip580_push_r14; }
    if (c[0] == 0x41 && c[1] == 0x54) { *to = (char*)f + 2; return (void*)skip580_push_r12; }
    return NULL;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted: the one the record says
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (h == NULL) h = dlopen("libcuda.so.1", RTLD_NOW);
    void* work = h != NULL ? called(privateSymbol(h, "cuMemAlloc_v2")) : NULL;
    void* freeWork = h != NULL ? called(privateSymbol(h, "cuMemFree_v2")) : NULL;
    void *allocTo = NULL, *freeTo = NULL;
    AllocFn alloc = (AllocFn)past(work, &allocTo);
    FreeFn release = (FreeFn)past(freeWork, &freeTo);
    int calls = 0, ok = 0, last = -1;
    for (int i = 0; alloc != NULL && i < 100; i++) {
        unsigned long long d = 0;
        skip580_to = allocTo;
        last = alloc(&d, 1 << 20);
        calls++;
        if (last == 0) {
            ok++;
            skip580_to = freeTo;
            if (release != NULL) release(d);
        }
    }
    printf("driver skip 580 calls %d succeeded %d (last answer %d)\n", calls, ok, last);
    printf("one allocation asked for\n");
    return 0;
}
