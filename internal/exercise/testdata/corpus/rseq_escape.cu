// Control flow taken out of the CUDA runtime by the kernel itself, with
// no code written and no memory of the library's touched: restartable
// sequences. glibc registers each thread's rseq area (its place is the
// public __rseq_offset); the program points the area's critical section
// at the whole of the runtime's code (libcudart's executable mapping,
// from /proc/self/maps), with an abort address of its own (after the
// signature the kernel checks). A timer's signal (every 10 us) that
// lands while the thread runs the runtime's code makes the kernel move
// the thread to the abort address, which leaves by siglongjmp: the call
// entered the runtime (on a GPU, maybe past its allocation) and the
// library's hook never reached its count. The program calls until a
// hundred calls were cut so, then the one honest call. A pass here needs
// every call cut (completed 0): calls that return are counted. The
// program stops at its first call that returns, or at 2,000 calls; the
// counts it prints say whether the kernel cut any (with a fake GPU a
// failing call is short). Passed wherever the witness was off (attack13).
// Stopped: a judged run starts with glibc's registration off
// (GLIBC_TUNABLES=glibc.pthread.rseq=0) and the statistics library's
// filter refuses the program an area of its own, so no thread has one:
// the area written here is one the kernel never reads, nothing is cut,
// and the record counts the calls ("escaped 0 completed 1").
// want: cudaMalloc was called 2 times
// forged when it prints: escaped 100 completed 0
#include <cuda_runtime.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/rseq.h>
#include <sys/time.h>

struct __attribute__((aligned(32))) Cs { uint32_t version, flags; uint64_t start, len, abort_ip; };
static Cs cs;
static sigjmp_buf env;
static char stub_stack[1 << 16] __attribute__((aligned(16)));

extern "C" void rseq_escaped() { siglongjmp(env, 1); }
extern "C" char rseq_stub[];
asm(".text\n"
    ".long 0x53053053\n"
    "rseq_stub:\n"
    "  lea stub_stack_top(%rip), %rsp\n"
    "  call rseq_escaped\n"
    "  ud2\n");
asm(".data\n.set stub_stack_top, _ZL10stub_stack + 65536\n.text\n");

static struct rseq* rs;
static volatile sig_atomic_t calling;
// The kernel clears the critical section's pointer at any event outside
// it (the call in the C library or the loader): put it back at each tick.
static void tick(int) {
    if (calling) __atomic_store_n(&rs->rseq_cs, (uint64_t)&cs, __ATOMIC_RELAXED);
}

int main() {
    FILE* f = fopen("/proc/self/maps", "r");
    char line[768];
    unsigned long lo = 0, hi = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long a, b;
        char perm[8];
        if (sscanf(line, "%lx-%lx %7s", &a, &b, perm) == 3 && perm[2] == 'x' && strstr(line, "libcudart")) {
            if (!lo) lo = a;
            hi = b;
        }
    }
    if (f) fclose(f);
    if (!lo) {  // the runtime is loaded lazily? make a call first
        printf("no runtime mapped\n");
    }
    cs.start = lo;
    cs.len = hi - lo;
    cs.abort_ip = (uint64_t)rseq_stub;
    rs = (struct rseq*)((char*)__builtin_thread_pointer() + __rseq_offset);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = tick;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    cudaFree(0);  // the runtime started before the timer: the cut lands in cudaMalloc
    struct itimerval it = {{0, 10}, {0, 10}};
    setitimer(ITIMER_REAL, &it, NULL);
    volatile int escaped = 0, completed = 0;
    for (volatile long n = 0; n < 2000 && escaped < 100 && completed == 0; n++) {
        if (sigsetjmp(env, 1) == 0) {
            void* p = NULL;
            calling = 1;
            __atomic_store_n(&rs->rseq_cs, (uint64_t)&cs, __ATOMIC_RELAXED);
            cudaMalloc(&p, 1 << 20);
            calling = 0;
            __atomic_store_n(&rs->rseq_cs, 0, __ATOMIC_RELAXED);
            completed = completed + 1;
        } else {
            calling = 0;
            escaped = escaped + 1;
        }
    }
    __atomic_store_n(&rs->rseq_cs, 0, __ATOMIC_RELAXED);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    printf("escaped %d completed %d (runtime %lx-%lx)\n", (int)escaped, (int)completed, lo, hi);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
