// Every probed function is probed at its first instruction and at every
// way out (attack15), and a call that leaves by a fault is counted by its
// signal. This one (round 16) has every probed instruction done by
// someone else: a child of the program, which as root may trace it (the
// plain runner as root; the program also lets any process trace it,
// PR_SET_PTRACER), attaches (PTRACE_SEIZE) and steps the program's main
// thread through each call of the CUDA driver's cuMemAlloc_v2 (its
// exported entry, found in the driver's own symbol table, so no hook of
// the statistics library is on the path). Where the next instruction is
// a uprobe's breakpoint (0xcc in memory), the child does the instruction
// the driver's file has there itself, in the registers and the stack
// (`push`, `endbr64`, the trampoline's `cmpl` and `jmp *slot(%rip)`, a
// `jmp` out, the `ret`) and moves the thread past it: the breakpoint is
// never hit, so no site counts the call, and no signal reaches a handler
// of the program's (the steps' traps are the tracer's). No code written,
// nothing of the statistics library touched: the record claims the one
// honest cudaMalloc, the witness counted one, and it passed in the plain
// runner as root with the witness on. The grading sandbox refused it
// already (its filter refuses ptrace, and a program there is not
// dumpable, so only root may attach: ptrace_code.cu). The statistics
// library's filter now refuses ptrace (and process_vm_writev, which
// writes another process's memory as PTRACE_POKEDATA does) in every
// judged run: where the way is refused, the forger stops with exit
// status 71.
// want: exit status 71
// forged when it prints: ptrace step calls 100 stepped
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "private_runtime.h"

typedef int (*AllocFn)(unsigned long long*, size_t);

// fileBytes copies n bytes at f as the file mapped there has them (a
// uprobe's breakpoint shows in memory, not in the file).
static int fileBytes(uintptr_t a, unsigned char* b, size_t n) {
    FILE* m = fopen("/proc/self/maps", "r");
    char line[512];
    int ok = 0;
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

// stepDone marks the end of a call: the tracer steps until the thread
// reaches it.
extern "C" __attribute__((noinline)) void stepDone() { __asm__ volatile(""); }

static long peek(pid_t pid, uintptr_t a) { return ptrace(PTRACE_PEEKDATA, pid, (void*)a, NULL); }

// emulate does the file's instruction at the thread's rip, where a
// breakpoint sits; false for one it does not know.
static bool emulate(pid_t pid, struct user_regs_struct* r) {
    unsigned char c[16];
    if (!fileBytes(r->rip, c, sizeof c)) return false;
    int rex = c[0] == 0x41 ? 1 : 0;
    if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa) { r->rip += 4; return true; }
    if (c[rex] >= 0x50 && c[rex] <= 0x57) {  // push
        static const size_t at[16] = {
            offsetof(user_regs_struct, rax), offsetof(user_regs_struct, rcx), offsetof(user_regs_struct, rdx), offsetof(user_regs_struct, rbx),
            offsetof(user_regs_struct, rsp), offsetof(user_regs_struct, rbp), offsetof(user_regs_struct, rsi), offsetof(user_regs_struct, rdi),
            offsetof(user_regs_struct, r8),  offsetof(user_regs_struct, r9),  offsetof(user_regs_struct, r10), offsetof(user_regs_struct, r11),
            offsetof(user_regs_struct, r12), offsetof(user_regs_struct, r13), offsetof(user_regs_struct, r14), offsetof(user_regs_struct, r15)};
        unsigned long long v = *(unsigned long long*)((char*)r + at[rex * 8 + (c[rex] - 0x50)]);
        r->rsp -= 8;
        ptrace(PTRACE_POKEDATA, pid, (void*)r->rsp, (void*)v);
        r->rip += 1 + rex;
        return true;
    }
    if (c[0] == 0xc3) { r->rip = (unsigned long long)peek(pid, r->rsp); r->rsp += 8; return true; }  // ret
    if (c[0] == 0xe9) { int32_t d; memcpy(&d, c + 1, 4); r->rip += 5 + d; return true; }             // jmp rel32
    if (c[0] == 0xff && c[1] == 0x25) {                                                                // jmp *slot(%rip)
        int32_t d;
        memcpy(&d, c + 2, 4);
        r->rip = (unsigned long long)peek(pid, r->rip + 6 + d);
        return true;
    }
    if ((c[0] == 0x81 || c[0] == 0x83) && c[1] == 0x3d) {  // cmpl $imm, disp(%rip)
        int len = c[0] == 0x81 ? 10 : 7;
        int32_t d, imm;
        memcpy(&d, c + 2, 4);
        if (c[0] == 0x81) memcpy(&imm, c + 6, 4); else imm = (int8_t)c[6];
        uint32_t v = (uint32_t)peek(pid, r->rip + len + d), k = (uint32_t)imm, diff = v - k;
        r->eflags &= ~(0x1UL | 0x40UL | 0x80UL | 0x800UL);
        if (diff == 0) r->eflags |= 0x40;
        if (v < k) r->eflags |= 0x1;
        if (diff & 0x80000000u) r->eflags |= 0x80;
        if ((((v ^ k) & (v ^ diff)) >> 31) & 1) r->eflags |= 0x800;
        r->rip += len;
        return true;
    }
    return false;
}

// trace is the child: it attaches to the program's main thread and, at
// each SIGUSR2 the thread raises, steps it to stepDone, doing each
// probed instruction itself. It writes how many it did at the end.
static void trace(pid_t pid, int ready) {
    if (ptrace(PTRACE_SEIZE, pid, NULL, (void*)(long)PTRACE_O_EXITKILL) != 0) {
        char no = 'n';
        write(ready, &no, 1);
        _exit(0);
    }
    char yes = 'y';
    write(ready, &yes, 1);
    long skipped = 0, unknown = 0;
    bool stepping = false;
    for (;;) {
        int st;
        if (waitpid(pid, &st, __WALL) != pid || !WIFSTOPPED(st)) break;
        int sig = WSTOPSIG(st);
        if (!stepping && sig != SIGUSR2) {
            ptrace(PTRACE_CONT, pid, NULL, (void*)(long)(st >> 16 ? 0 : sig));
            continue;
        }
        stepping = true;
        struct user_regs_struct r;
        ptrace(PTRACE_GETREGS, pid, NULL, &r);
        if (r.rip == (uintptr_t)stepDone) {
            stepping = false;
            ptrace(PTRACE_CONT, pid, NULL, NULL);
            continue;
        }
        // Done here, a probed instruction may lead to another (the
        // entry's jump to the work's first instruction): each is done
        // before the thread takes a step.
        bool moved = false;
        while ((peek(pid, r.rip) & 0xff) == 0xcc && r.rip != (uintptr_t)stepDone) {
            if (!emulate(pid, &r)) {
                unknown++;
                break;
            }
            skipped++;
            moved = true;
        }
        if (moved) ptrace(PTRACE_SETREGS, pid, NULL, &r);
        if (moved && r.rip == (uintptr_t)stepDone) {
            stepping = false;
            ptrace(PTRACE_CONT, pid, NULL, NULL);
            continue;
        }
        ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL);
    }
    fprintf(stderr, "the tracer did %ld probed instructions itself (%ld it could not)\n", skipped, unknown);
    _exit(0);
}

static void ignore(int) {}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted: the one the record says
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (h == NULL) h = dlopen("libcuda.so.1", RTLD_NOW);
    AllocFn alloc = h != NULL ? (AllocFn)privateSymbol(h, "cuMemAlloc_v2") : NULL;
    signal(SIGUSR2, ignore);
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    int pp[2];
    if (pipe(pp) != 0) return 1;
    pid_t self = getpid();
    pid_t child = fork();
    if (child == 0) {
        close(pp[0]);
        trace(self, pp[1]);
    }
    close(pp[1]);
    char ok = 'n';
    if (child < 0 || read(pp[0], &ok, 1) != 1 || ok != 'y') {
        printf("ptrace: refused\n");
        return 71;
    }
    int calls = 0;
    for (int i = 0; alloc != NULL && i < 100; i++) {
        unsigned long long d = 0;
        raise(SIGUSR2);  // the tracer steps from here
        alloc(&d, 1 << 20);
        stepDone();
        calls++;
    }
    printf("ptrace step calls %d stepped\n", calls);
    printf("one allocation asked for\n");
    return 0;
}
