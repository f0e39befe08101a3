// A thread made by a raw clone without CLONE_SETTLS shares its parent's
// thread-local storage, so the statistics library takes it for its
// parent: while the parent is inside the library (its lock held, or the
// library's own call into CUDA under way), the thread's calls look like
// the library's own and are forwarded uncounted. A profiling timer's
// handler finds the parent there (dlsym's answer says when the library is
// busy) and holds it while the thread does the work (a hundred
// cudaMalloc); the program's own record claims one. Before, only the
// witness saw them.
// It races: a timer that lands as the library takes or lets go of its
// lock finds it neither free nor held by its thread, and the handler's
// dlsym waits for it forever; the program's own alarm then kills it,
// in place of the run's time limit.
// want: does not follow|killed by signal
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static void* runtime;
static void* hook;
static volatile sig_atomic_t go = 0, finished = 0, done = 0;
static char stack[1 << 20];

static int find(struct dl_phdr_info* info, size_t, void*) {
    if (strstr(info->dlpi_name, "libcudart") == NULL) return 0;
    runtime = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    return 1;
}

static int work(void*) {
    while (!go) {
    }
    for (int i = 0; i < 100; i++) {
        void* p = NULL;
        cudaMalloc(&p, 1 << 20);
    }
    finished = 1;
    return 0;
}

static void onTimer(int) {
    if (done || dlsym(runtime, "cudaMalloc") == hook) return;
    go = 1;
    while (!finished) {
    }
    done = 1;
}

int main() {
    cudaFree(NULL);
    dl_iterate_phdr(find, NULL);
    hook = dlsym(RTLD_DEFAULT, "cudaMalloc");
    if (runtime == NULL || hook == NULL) return 1;
    sigset_t prof, old;
    sigemptyset(&prof);
    sigaddset(&prof, SIGPROF);
    sigprocmask(SIG_BLOCK, &prof, &old);  // the thread starts with it blocked
    clone(work, stack + sizeof stack, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM, NULL);
    signal(SIGPROF, onTimer);
    sigprocmask(SIG_SETMASK, &old, NULL);
    alarm(2);
    struct itimerval it = {{0, 100}, {0, 100}};
    setitimer(ITIMER_PROF, &it, NULL);
    for (long i = 0; i < 2000000 && !done; i++) cudaFree(NULL);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &off, NULL);
    alarm(0);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for (%s)\n", done ? "and a hundred unseen" : "alone");
    return 0;
}
