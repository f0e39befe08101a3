// fault_exit.cu without a fault (round 16). The function behind
// cuMemAlloc_v2 is entered past its first instruction (a naked stub does
// the `push`), so its entry's probe never runs, and it writes its answer
// where its first argument points just before its `ret`. Here that is a
// page registered with userfaultfd (the system call, or, where it is
// refused, /dev/userfaultfd's ioctl USERFAULTFD_IOC_NEW) and never filled:
// the store, after the work is done and the driver's lock given back,
// waits in the kernel for the page. Nothing fills it. A second thread,
// which reads the fault's event from the userfaultfd, sends the waiting
// thread SIGUSR1; the kernel leaves the fault for the signal (a fault
// from user mode waits interruptibly), and the handler reads the answer
// from the store's source register (its ModRM byte) and siglongjmps out.
// Entered past its first instruction, left by no way out: no site counts
// the call, and SIGUSR1 is no fault signal (the witness counts SIGSEGV,
// SIGBUS, SIGILL, SIGFPE, SIGTRAP and SIGSYS caught by the program's
// handlers, and shows the others beside the comparison, never judged).
// No code written, nothing of the statistics library touched: the record
// claims the one honest cudaMalloc, the witness counted one, and it
// passed in the plain runner as root with the witness on. The grading
// sandbox refused it already (its filter refuses userfaultfd, and
// /dev/userfaultfd is not among its devices). The statistics library's
// filter now refuses userfaultfd and USERFAULTFD_IOC_NEW in every judged
// run: where the way is refused, the forger stops with exit status 71.
// want: exit status 71
// forged when it prints: uffd exit calls 100 held 100
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "private_runtime.h"

typedef int (*AllocFn)(unsigned long long*, size_t);

extern "C" void* held_to;
void* held_to;
extern "C" __attribute__((naked)) void held_push_rbp() { __asm__ volatile("push %rbp\n\tjmp *held_to(%rip)"); }
extern "C" __attribute__((naked)) void held_push_r15() { __asm__ volatile("push %r15\n\tjmp *held_to(%rip)"); }
extern "C" __attribute__((naked)) void held_push_r14() { __asm__ volatile("push %r14\n\tjmp *held_to(%rip)"); }
extern "C" __attribute__((naked)) void held_push_r12() { __asm__ volatile("push %r12\n\tjmp *held_to(%rip)"); }
extern "C" __attribute__((naked)) void held_push_rbx() { __asm__ volatile("push %rbx\n\tjmp *held_to(%rip)"); }
extern "C" __attribute__((naked)) void held_nothing() { __asm__ volatile("jmp *held_to(%rip)"); }

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
    if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa) { *to = (char*)f + 4; return (void*)held_nothing; }
    if (c[0] == 0x55) { *to = (char*)f + 1; return (void*)held_push_rbp; }
    if (c[0] == 0x53) { *to = (char*)f + 1; return (void*)held_push_rbx; }
    if (c[0] == 0x41 && c[1] == 0x57) { *to = (char*)f + 2; return (void*)held_push_r15; }
    if (c[0] == 0x41 && c[1] == 0x56) { *to = (char*)f + 2; return (void*)held_push_r14; }
    if (c[0] == 0x41 && c[1] == 0x54) { *to = (char*)f + 2; return (void*)held_push_r12; }
    return NULL;
}

// openUffd opens a userfaultfd for faults from user mode: by the system
// call, else by /dev/userfaultfd (Linux 6.1). -1 where both are refused.
static int openUffd() {
    int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | 1 /* UFFD_USER_MODE_ONLY */);
    if (fd >= 0) return fd;
    int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
    if (dev < 0) return -1;
    fd = ioctl(dev, _IO(USERFAULTFD_IOC, 0x00), O_CLOEXEC | 1);
    close(dev);
    return fd;
}

static sigjmp_buf back;
static char* page;
static volatile unsigned long long answer;
static volatile int held;
static volatile pid_t caller;
static int uffd;

static const int regs[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                             REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};

// onSignal: the thread left its held store; the store `mov %reg, (...)`
// ([REX] 89 ModRM) is the instruction it will retry, and its source
// register holds the answer.
static void onSignal(int, siginfo_t*, void* ctx) {
    ucontext_t* uc = (ucontext_t*)ctx;
    const unsigned char* ip = (const unsigned char*)uc->uc_mcontext.gregs[REG_RIP];
    int rex = (ip[0] & 0xf0) == 0x40 ? ip[0] : 0;
    const unsigned char* op = rex ? ip + 1 : ip;
    if (op[0] == 0x89) answer = (unsigned long long)uc->uc_mcontext.gregs[regs[((rex & 4) << 1) | ((op[1] >> 3) & 7)]];
    held = held + 1;
    siglongjmp(back, 1);
}

// watch reads each fault's event and, rather than fill the page, sends
// the waiting thread SIGUSR1.
static void* watch(void*) {
    for (;;) {
        struct pollfd pf = {uffd, POLLIN, 0};
        if (poll(&pf, 1, -1) < 0) continue;
        struct uffd_msg m;
        if (read(uffd, &m, sizeof m) != sizeof m || m.event != UFFD_EVENT_PAGEFAULT) continue;
        syscall(SYS_tgkill, getpid(), caller, SIGUSR1);
    }
    return NULL;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted: the one the record says
    uffd = openUffd();
    if (uffd < 0) {
        printf("userfaultfd: %s\n", strerror(errno));
        return 71;
    }
    struct uffdio_api api = {UFFD_API, 0, 0};
    page = (char*)mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct uffdio_register reg;
    memset(&reg, 0, sizeof reg);
    reg.range.start = (uintptr_t)page;
    reg.range.len = 4096;
    reg.mode = UFFDIO_REGISTER_MODE_MISSING;
    if (ioctl(uffd, UFFDIO_API, &api) != 0 || ioctl(uffd, UFFDIO_REGISTER, &reg) != 0) {
        printf("userfaultfd's registration: %s\n", strerror(errno));
        return 71;
    }
    caller = (pid_t)syscall(SYS_gettid);
    pthread_t w;
    pthread_create(&w, NULL, watch, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = onSignal;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGUSR1, &sa, NULL);
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (h == NULL) h = dlopen("libcuda.so.1", RTLD_NOW);
    void* to = NULL;
    AllocFn alloc = h != NULL ? (AllocFn)past(work(privateSymbol(h, "cuMemAlloc_v2")), &to) : NULL;
    volatile int calls = 0, got = 0;
    for (volatile int i = 0; alloc != NULL && i < 100; i++) {
        answer = 0;
        held_to = to;
        if (sigsetjmp(back, 1) == 0) alloc((unsigned long long*)page, 1 << 20);
        calls = calls + 1;
        if (answer != 0) got = got + 1;  // a device pointer, unseen
    }
    printf("uffd exit calls %d held %d allocated %d\n", (int)calls, (int)held, (int)got);
    printf("one allocation asked for\n");
    return 0;
}
