// The work done in a signal handler that interrupted the statistics
// library while it held its lock: a hook reached there takes the call for
// the library's own and counts nothing. A profiling timer interrupts the
// program while it calls CUDA; the handler asks dlsym for the runtime's
// cudaMalloc (the library answers with its hook unless it is busy: the
// answer says when it is) and then makes a hundred cudaMalloc. The
// program's own record claims one. Before, only the witness saw them.
// It races: a timer that lands as the library takes or lets go of its
// lock finds it neither free nor held by its thread, and the handler's
// dlsym waits for it forever; the program's own alarm then kills it,
// in place of the run's time limit.
// want: does not follow|killed by signal
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static void* runtime;
static void* hook;
static volatile sig_atomic_t done = 0;

static int find(struct dl_phdr_info* info, size_t, void*) {
    if (strstr(info->dlpi_name, "libcudart") == NULL) return 0;
    runtime = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    return 1;
}

static void onTimer(int) {
    if (done || dlsym(runtime, "cudaMalloc") == hook) return;
    for (int i = 0; i < 100; i++) {
        void* p = NULL;
        cudaMalloc(&p, 1 << 20);
    }
    done = 1;
}

int main() {
    cudaFree(NULL);
    dl_iterate_phdr(find, NULL);
    hook = dlsym(RTLD_DEFAULT, "cudaMalloc");
    if (runtime == NULL || hook == NULL) return 1;
    signal(SIGPROF, onTimer);
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
