// driver_table.cu past the witness's probe on the function behind the
// driver's slot: that function is entered past its first instruction,
// which the program's own compiled code performs (a naked function:
// `push %rbp`, then a jump to the second instruction). On driver 580,
// whose entries are no trampolines, the exported entry itself is entered
// so. No code is written at run time (W^X sees nothing), no system call
// is refused, nothing of the statistics library is touched. It passed
// with the witness on while the witness probed first instructions alone
// (review/attack14; on the H200, driver 580: 100 cuMemAlloc calls,
// counted 0). The witness now probes every way out of the entry and of
// the function behind it as well: the calls leave by the work's `ret`,
// counted, and never entered it at its first instruction.
// A uprobe shows: the process reads its breakpoint (0xcc) where a probe
// sits, so the first instruction is read from the driver's file.
// needs: witness
// want: a CUDA driver function was entered past its first instruction|dynamic loading
// forged when it prints: driver skip calls 100 
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "private_runtime.h"

typedef int (*AllocFn)(unsigned long long*, size_t);
typedef int (*FreeFn)(unsigned long long);

extern "C" void* skip_to;  // where the stubs go on
void* skip_to;

// The first instruction, done here; the rest, there.
extern "C" __attribute__((naked)) void skip_push_rbp() { __asm__ volatile("push %rbp\n\tjmp *skip_to(%rip)"); }
extern "C" __attribute__((naked)) void skip_push_r15() { __asm__ volatile("push %r15\n\tjmp *skip_to(%rip)"); }
extern "C" __attribute__((naked)) void skip_push_r14() { __asm__ volatile("push %r14\n\tjmp *skip_to(%rip)"); }
extern "C" __attribute__((naked)) void skip_push_rbx() { __asm__ volatile("push %rbx\n\tjmp *skip_to(%rip)"); }
extern "C" __attribute__((naked)) void skip_nothing() { __asm__ volatile("jmp *skip_to(%rip)"); }

static void* behind(void* entry) {
    const unsigned char* c = (const unsigned char*)entry;
    if (c == NULL) return NULL;
    for (int i = 0; i < 32; i++)
        if ((c[i] == 0xff || c[i] == 0xcc) && c[i + 1] == 0x25) {  // 0xcc: a uprobe on the jump
            int32_t disp;
            memcpy(&disp, c + i + 2, 4);
            return *(void**)(c + i + 6 + disp);
        }
    return entry;
}

// original is f's first bytes as its file has them: where a uprobe
// sits, the process reads its breakpoint (0xcc) there instead.
static const unsigned char* original(void* f) {
    static unsigned char b[16];
    FILE* m = fopen("/proc/self/maps", "r");
    char line[512];
    uintptr_t a = (uintptr_t)f;
    while (m != NULL && fgets(line, sizeof line, m) != NULL) {
        unsigned long lo, hi, off;
        char path[400] = "";
        if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %399s", &lo, &hi, &off, path) == 4 && lo <= a && a < hi) {
            FILE* lib = fopen(path, "rb");
            if (lib != NULL && fseek(lib, (long)(a - lo + off), SEEK_SET) == 0 && fread(b, 1, sizeof b, lib) == sizeof b) {
                fclose(lib);
                fclose(m);
                return b;
            }
            if (lib != NULL) fclose(lib);
        }
    }
    if (m != NULL) fclose(m);
    return (const unsigned char*)f;
}

// past is a stub that does f's first instruction and goes on at its
// second (through skip_to), or null where that instruction is not known.
static void* past(void* f, void** to) {
    const unsigned char* c = original(f);
    if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa) { *to = (char*)f + 4; return (void*)skip_nothing; }
    if (c[0] == 0x55) { *to = (char*)f + 1; return (void*)skip_push_rbp; }
    if (c[0] == 0x53) { *to = (char*)f + 1; return (void*)skip_push_rbx; }
    if (c[0] == 0x41 && c[1] == 0x57) { *to = (char*)f + 2; return (void*)skip_push_r15; }
    if (c[0] == 0x41 && c[1] == 0x56) { *to = (char*)f + 2; return (void*)skip_push_r14; }
    return NULL;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted: the one the record says
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (h == NULL) h = dlopen("libcuda.so.1", RTLD_NOW);
    void* work = h != NULL ? behind(privateSymbol(h, "cuMemAlloc_v2")) : NULL;
    void* freeWork = h != NULL ? behind(privateSymbol(h, "cuMemFree_v2")) : NULL;
    void *allocTo = NULL, *freeTo = NULL;
    AllocFn alloc = work != NULL ? (AllocFn)past(work, &allocTo) : NULL;
    FreeFn release = freeWork != NULL ? (FreeFn)past(freeWork, &freeTo) : NULL;
    int calls = 0, ok = 0, last = -1;
    for (int i = 0; alloc != NULL && i < 100; i++) {
        unsigned long long d = 0;
        skip_to = allocTo;
        last = alloc(&d, 1 << 20);
        calls++;
        if (last == 0) {
            ok++;
            skip_to = freeTo;
            if (release != NULL) release(d);
        }
    }
    printf("driver skip calls %d succeeded %d (last answer %d)\n", calls, ok, last);
    printf("one allocation asked for\n");
    return 0;
}
