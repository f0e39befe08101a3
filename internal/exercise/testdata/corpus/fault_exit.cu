// Every way out of the CUDA driver's allocation functions is probed
// (attack15): a call entered past the first instruction of the function
// behind cuMemAlloc_v2 leaves by its `ret`, counted, and the run fails.
// This one never reaches the `ret`. The function writes its answer
// where its first argument points just before it returns (driver 535:
// `mov %rax,(%rbx)` at 0x2d8a6d, on success and on failure alike); the
// program points it at a page it mapped read-only, so the store faults
// inside the driver, after the work is done and the driver's lock given
// back. The program's SIGSEGV handler reads the answer from the
// faulting store's source register (the instruction's ModRM byte, read
// at the faulting address) and siglongjmps out. Entered past its first
// instruction (a naked stub does the `push %rbp`), left by a fault: no
// site of the probe counts the call (here, driver 535 without a GPU:
// every site 0, the run passed with the witness on, plain and sandbox).
// No code written, no system call refused (a SIGSEGV handler is not a
// SIGTRAP one), nothing of the statistics library touched. The witness
// now counts the fault signals a run catches in handlers of its own
// (a tracepoint on each signal's delivery): any fails the run.
// needs: witness
// want: fault signals in handlers of its own|dynamic loading
// forged when it prints: fault exit calls 100 faulted 100
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "private_runtime.h"

typedef int (*AllocFn)(unsigned long long*, size_t);

extern "C" void* fault_to;
void* fault_to;
extern "C" __attribute__((naked)) void fault_push_rbp() { __asm__ volatile("push %rbp\n\tjmp *fault_to(%rip)"); }
extern "C" __attribute__((naked)) void fault_push_r15() { __asm__ volatile("push %r15\n\tjmp *fault_to(%rip)"); }
extern "C" __attribute__((naked)) void fault_push_r14() { __asm__ volatile("push %r14\n\tjmp *fault_to(%rip)"); }
extern "C" __attribute__((naked)) void fault_push_r12() { __asm__ volatile("push %r12\n\tjmp *fault_to(%rip)"); }
extern "C" __attribute__((naked)) void fault_push_rbx() { __asm__ volatile("push %rbx\n\tjmp *fault_to(%rip)"); }
extern "C" __attribute__((naked)) void fault_nothing() { __asm__ volatile("jmp *fault_to(%rip)"); }

// fileBytes copies n bytes at f as the driver's file has them (a
// uprobe's breakpoint shows in memory).
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

// work is the function behind an entry: its slot's, through the first
// `jmp *disp32(%rip)` (535) or `call *disp32(%rip)` (580); else the entry.
static void* work(void* entry) {
    unsigned char c[64];
    if (entry == NULL || !fileBytes(entry, c, sizeof c)) return entry;
    for (int i = 0; i + 6 <= (int)sizeof c; i++)
        if (c[i] == 0xff && (c[i + 1] == 0x25 || c[i + 1] == 0x15)) {
            int32_t disp;
            memcpy(&disp, c + i + 2, 4);
            return *(void**)((char*)entry + i + 6 + disp);
        }
    return entry;
}

static void* past(void* f, void** to) {
    unsigned char c[4];
    if (f == NULL || !fileBytes(f, c, sizeof c)) return NULL;
    if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa) { *to = (char*)f + 4; return (void*)fault_nothing; }
    if (c[0] == 0x55) { *to = (char*)f + 1; return (void*)fault_push_rbp; }
    if (c[0] == 0x53) { *to = (char*)f + 1; return (void*)fault_push_rbx; }
    if (c[0] == 0x41 && c[1] == 0x57) { *to = (char*)f + 2; return (void*)fault_push_r15; }
    if (c[0] == 0x41 && c[1] == 0x56) { *to = (char*)f + 2; return (void*)fault_push_r14; }
    if (c[0] == 0x41 && c[1] == 0x54) { *to = (char*)f + 2; return (void*)fault_push_r12; }
    return NULL;
}

static sigjmp_buf back;
static void* page;
static volatile unsigned long long answer;
static volatile int faulted;

// The general registers' places in the signal's context, by the x86-64
// encoding's register number.
static const int regs[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                             REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};

static void onFault(int sig, siginfo_t* si, void* ctx) {
    ucontext_t* uc = (ucontext_t*)ctx;
    if ((char*)si->si_addr < (char*)page || (char*)si->si_addr >= (char*)page + 4096) {
        signal(SIGSEGV, SIG_DFL);
        return;  // not ours: fault again, and end
    }
    // The store `mov %reg, (...)`: [REX] 89 ModRM; its source register
    // holds the answer.
    const unsigned char* ip = (const unsigned char*)uc->uc_mcontext.gregs[REG_RIP];
    int rex = (ip[0] & 0xf0) == 0x40 ? ip[0] : 0;
    const unsigned char* op = rex ? ip + 1 : ip;
    if (op[0] == 0x89) {
        int r = ((rex & 4) << 1) | ((op[1] >> 3) & 7);
        answer = (unsigned long long)uc->uc_mcontext.gregs[regs[r]];
    }
    faulted = faulted + 1;
    siglongjmp(back, 1);
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted: the one the record says
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (h == NULL) h = dlopen("libcuda.so.1", RTLD_NOW);
    void* to = NULL;
    AllocFn alloc = h != NULL ? (AllocFn)past(work(privateSymbol(h, "cuMemAlloc_v2")), &to) : NULL;
    page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = onFault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
    volatile int calls = 0, got = 0;
    for (volatile int i = 0; alloc != NULL && page != MAP_FAILED && i < 100; i++) {
        answer = 0;
        fault_to = to;
        if (sigsetjmp(back, 1) == 0) alloc((unsigned long long*)page, 1 << 20);
        calls = calls + 1;
        if (answer != 0) got = got + 1;  // a device pointer, unseen
    }
    signal(SIGSEGV, SIG_DFL);
    printf("fault exit calls %d faulted %d allocated %d\n", (int)calls, (int)faulted, (int)got);
    printf("one allocation asked for\n");
    return 0;
}
