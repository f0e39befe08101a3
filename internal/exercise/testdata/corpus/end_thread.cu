// after_end.cu's work by a second thread, once the end frame is out: the
// program's last destructor tells the thread that the program is ending,
// and the thread watches the process's descriptors (/proc/self/fd) until
// /proc/self/maps is open, as the library opens it in its own destructor
// just before it sends the end frame, holding its lock (the program made
// that list long, forty thousand mappings, so that it is seen). The
// thread's hundred cudaMalloc are made then; their counts wait for the
// lock and land in the record after the end frame went out, so no frame
// carries them. Before, it passed wherever the witness was off (every
// run of six). A CUDA call reached by a process whose record has ended
// now ends it (exit status 72), before the call is made, or, made
// already, before it is counted; and the program's own process, its end
// frame out, waits for the calls other threads are making (a second at
// most) before it exits: a call whose check came just before the end,
// whose thread lost the race to the exit, was made and never counted
// (one run in four passed so, before that wait).
// On the H200 (CUDA 13) the process's exit won the race every time: the
// thread never made its hundred calls, so the run, honest after all,
// passed (the witness counted one cuMemAlloc). The thread says when a
// call returned; a pass without that line forged nothing.
// want: exit status 72|the statistics record does not match what the kernel saw
// forged when it prints: a call after the end returned
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile int ending, watching;

// mapsOpen says whether /proc/self/maps is open at a low descriptor.
static bool mapsOpen() {
    char path[64], link[256];
    for (int fd = 3; fd < 8; fd++) {
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t k = readlink(path, link, sizeof link - 1);
        if (k > 5 && memcmp(link + k - 5, "/maps", 5) == 0) return true;
    }
    return false;
}

static void* worker(void*) {
    int n = 0;
    cudaGetDeviceCount(&n);  // the runtime's state for this thread, made now
    while (!ending) {}
    watching = 1;
    // The library reads its maps in its destructor, before the end frame.
    while (!mapsOpen()) {}
    for (int i = 0; i < 100; i++) {
        void* p = NULL;
        cudaMalloc(&p, 1 << 20);
        if (i == 0) {
            static const char said[] = "a call after the end returned\n";
            write(2, said, sizeof said - 1);
        }
    }
    return NULL;
}

struct Last {
    ~Last() {
        ending = 1;
        while (!watching) {}  // the thread is on a core, watching
    }
} last;

int main() {
    long page = sysconf(_SC_PAGESIZE);
    for (int i = 0; i < 40000; i++) mmap(NULL, page, i % 2 ? PROT_READ : PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
