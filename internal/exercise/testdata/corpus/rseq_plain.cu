// rseq_escape.cu with nothing the source scan names: the runtime's code
// found from the address of one of its functions the library does not
// hook (cudaRuntimeGetVersion taken as a value: the runtime's own
// address), the critical section spanning 256 KiB either side of it (4 MiB reached
// the C library, and a malloc cut mid-way aborted the program), the abort
// stub in a function's inline assembly (a local label, no symbol
// defined), no /proc, no dynamic loading, no raw system call. The kernel
// still moved the thread out of the runtime at a timer's signal, past
// the hook's count, wherever the witness was off (attack13). Stopped as
// rseq_escape.cu is: no thread of a judged run has an area.
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
extern "C" char stub_stack[1 << 16] __attribute__((aligned(16)));
char stub_stack[1 << 16];
static struct rseq* rs;
static volatile sig_atomic_t calling;

extern "C" void rseq_escaped() { siglongjmp(env, 1); }

static void tick(int) {
    if (calling) __atomic_store_n(&rs->rseq_cs, (uint64_t)&cs, __ATOMIC_RELAXED);
}

static uint64_t stub() {
    uint64_t at;
    asm volatile("lea 2f(%%rip), %0\n"
                 "jmp 3f\n"
                 ".long 0x53053053\n"
                 "2: lea stub_stack+65536(%%rip), %%rsp\n"
                 "call rseq_escaped\n"
                 "ud2\n"
                 "3:\n"
                 : "=r"(at));
    return at;
}

int main() {
    uint64_t rt = (uint64_t)(void*)&cudaRuntimeGetVersion;
    cs.start = rt - (256u << 10);  // wider reaches the C library (malloc
    cs.len = 512u << 10;           // cut mid-way: the heap corrupted)
    cs.abort_ip = stub();
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
    printf("escaped %d completed %d\n", (int)escaped, (int)completed);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
