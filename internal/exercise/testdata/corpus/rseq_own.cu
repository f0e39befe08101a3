// rseq_plain.cu with an area of the program's own: glibc registers none
// in a judged run (GLIBC_TUNABLES=glibc.pthread.rseq=0), so the program
// registers one itself with the rseq system call (a thread-local struct
// and the signature the kernel checks), then points its critical section
// at the runtime's code around cudaRuntimeGetVersion and has a timer's
// signals cut its cudaMalloc calls short. Stopped: the statistics
// library's filter refuses rseq in every judged run (EPERM): no area,
// nothing cut ("no area", then "escaped 0 completed 1"); the record counts
// the calls.
// want: cudaMalloc was called 2 times
// forged when it prints: escaped 100 completed 0
#include <cuda_runtime.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/time.h>

struct __attribute__((aligned(32))) Area { uint32_t cpu_id_start, cpu_id; uint64_t rseq_cs; uint32_t flags, pad[3]; };
struct __attribute__((aligned(32))) Cs { uint32_t version, flags; uint64_t start, len, abort_ip; };
static __thread Area area;
static Cs cs;
static sigjmp_buf env;
extern "C" char own_stack[1 << 16] __attribute__((aligned(16)));
char own_stack[1 << 16];
static volatile sig_atomic_t calling;

extern "C" void own_escaped() { siglongjmp(env, 1); }

static void tick(int) {
    if (calling) __atomic_store_n(&area.rseq_cs, (uint64_t)&cs, __ATOMIC_RELAXED);
}

static uint64_t stub() {
    uint64_t at;
    asm volatile("lea 2f(%%rip), %0\n"
                 "jmp 3f\n"
                 ".long 0x53053053\n"
                 "2: lea own_stack+65536(%%rip), %%rsp\n"
                 "call own_escaped\n"
                 "ud2\n"
                 "3:\n"
                 : "=r"(at));
    return at;
}

int main() {
    long r = syscall(334 /* rseq on x86-64 */, &area, sizeof area, 0, 0x53053053);
    if (r != 0) printf("no area (%s)\n", strerror(errno));
    uint64_t rt = (uint64_t)(void*)&cudaRuntimeGetVersion;
    cs.start = rt - (256u << 10);
    cs.len = 512u << 10;
    cs.abort_ip = stub();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = tick;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    cudaFree(0);
    struct itimerval it = {{0, 10}, {0, 10}};
    setitimer(ITIMER_REAL, &it, NULL);
    volatile int escaped = 0, completed = 0;
    for (volatile long n = 0; n < 2000 && escaped < 100 && completed == 0; n++) {
        if (sigsetjmp(env, 1) == 0) {
            void* p = NULL;
            calling = 1;
            __atomic_store_n(&area.rseq_cs, (uint64_t)&cs, __ATOMIC_RELAXED);
            cudaMalloc(&p, 1 << 20);
            calling = 0;
            __atomic_store_n(&area.rseq_cs, 0, __ATOMIC_RELAXED);
            completed = completed + 1;
        } else {
            calling = 0;
            escaped = escaped + 1;
        }
    }
    __atomic_store_n(&area.rseq_cs, 0, __ATOMIC_RELAXED);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    printf("escaped %d completed %d\n", (int)escaped, (int)completed);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
