/* faults N: N faults (a store to a page mapped read-only) caught by a
   SIGSEGV handler that siglongjmps out, and N signals of another kind
   (SIGUSR1) caught by a handler that returns. */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
static sigjmp_buf back;
static void onFault(int sig) { siglongjmp(back, 1); }
static void onUsr(int sig) {}
int main(int argc, char** argv) {
    int n = atoi(argv[1]);
    volatile int* page = (volatile int*)mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) return 2;
    signal(SIGSEGV, onFault);
    signal(SIGUSR1, onUsr);
    for (volatile int i = 0; i < n; i++) {
        if (sigsetjmp(back, 1) == 0) *page = 1;
        raise(SIGUSR1);
    }
    return 0;
}
