// The witness counts a run's calls by the cgroup the calling thread is
// in when it calls (bpf_get_current_cgroup_id), and the plain runner
// refuses nothing to a program running as root: attack14's
// cgroup_escape.cu moved the program out of the run's cgroup by writing
// its pid to another's cgroup.procs. This one moves nothing (round 16):
// clone3 (Linux 5.7) with CLONE_INTO_CGROUP starts a child already in
// another cgroup (the cgroup root, opened as a folder), which the kernel
// lets root do at the clone itself, with no write to any cgroup file. The
// child shares the program's memory (CLONE_VM, no CLONE_SETTLS: its
// thread storage is the main thread's, which waits), so the CUDA context
// the program's one honest cudaMalloc made is its own; it calls the
// runtime's own cudaMalloc a hundred times around the statistics library
// (found in the runtime's symbol table, as around_hooks.cu does), so no
// hook sees it and no mark of a process not followed is written, and
// ends by a raw exit. The library's record counts the one call made
// through the hook; the witness counts the one call made in the run's
// cgroup, and the hundred for the cgroup root, which is no run's: they
// agree, and it passed in the plain runner as root with the witness on.
// The sandbox runs a program as a user of its own, whom the kernel
// refuses the clone into the root's cgroup; where it runs as root
// (LESSONS_SANDBOX_USERS=off) it passed there too. The statistics
// library's filter now answers clone3 with ENOSYS in every judged run,
// as a kernel before 5.3 does (glibc then starts threads by clone, which
// has no CLONE_INTO_CGROUP): where the way is refused, the forger stops
// with exit status 71.
// want: exit status 71
// forged when it prints: in another cgroup for 100 calls
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "private_runtime.h"

// struct clone_args, Linux 5.7's (CLONE_ARGS_SIZE_VER2).
struct CloneArgs {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};
const uint64_t kCloneVM = 0x100, kCloneIntoCgroup = 0x200000000ULL;

static MallocFn real;
static int calls;
static int work() {
    for (int i = 0; i < 100; i++) {
        void* d = NULL;
        real(&d, 1 << 20);
        calls++;
    }
    return 0;
}

static char stack[1 << 20] __attribute__((aligned(16)));

// spawn makes the child by clone3 on a stack of its own: it calls work
// there and ends with a raw exit (no exit handler of the program's runs).
static long spawn(struct CloneArgs* a) {
    long r;
    register int (*fn)() __asm__("r12") = work;
    __asm__ volatile(
        "syscall\n\t"
        "test %%rax, %%rax\n\t"
        "jnz 1f\n\t"
        "call *%%r12\n\t"
        "mov %%eax, %%edi\n\t"
        "mov $60, %%eax\n\t"
        "syscall\n\t"
        "1:"
        : "=a"(r)
        : "0"(435L), "D"(a), "S"(sizeof *a), "r"(fn)
        : "rcx", "r11", "memory");
    return r;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted by both
    real = loadedMalloc();
    // cgroup v2's root: /sys/fs/cgroup, or beside v1's (a hybrid mount).
    int cg = open("/sys/fs/cgroup/unified", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cg < 0) cg = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct CloneArgs a;
    memset(&a, 0, sizeof a);
    a.flags = kCloneVM | kCloneIntoCgroup;
    a.exit_signal = SIGCHLD;
    a.stack = (uint64_t)(uintptr_t)stack;
    a.stack_size = sizeof stack;
    a.cgroup = (uint64_t)(cg < 0 ? 0 : cg);
    long pid = real != NULL ? spawn(&a) : -ENOENT;
    if (pid == -ENOSYS) {
        printf("clone3: %s\n", strerror(ENOSYS));
        return 71;
    }
    int st = 0;
    if (pid > 0 && waitpid((pid_t)pid, &st, __WALL) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0)
        printf("a child in another cgroup for %d calls\n", calls);
    else
        printf("no child in another cgroup: %s\n", pid < 0 ? strerror((int)-pid) : "it failed");
    printf("one allocation asked for\n");
    return 0;
}
