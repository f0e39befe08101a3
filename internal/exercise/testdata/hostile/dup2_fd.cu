// The channel covered with /dev/null before the wrong work, so that the
// library's frames about it go nowhere.
// want: the program left without exiting normally
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void scale(float* x, int n, float f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = f * (float)i;
}

static int arg(int argc, char** argv, int i, int def) { return argc > i ? atoi(argv[i]) : def; }

static void say(int iterations, int streams) {
    printf("%d iterations on %d streams; pool used high watermark: 4194304 bytes\n", iterations, streams);
    fflush(stdout);
}

// visible does what the checks count, on the pool, with tiny kernels.
static void visible(int iterations, int streams, cudaStream_t* s) {
    for (int it = 0; it < iterations; it++) {
        float* d;
        cudaMallocAsync(&d, 4 << 20, s[it % streams]);
        scale<<<1, 32, 0, s[it % streams]>>>(d, 32, 2.0f);
        cudaFreeAsync(d, s[it % streams]);
    }
    for (int i = 0; i < streams; i++) cudaStreamSynchronize(s[i]);
}

static void streamsOf(int n, cudaStream_t* s) {
    for (int i = 0; i < n; i++) cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking);
}
int main(int argc, char** argv) {
    int iterations = arg(argc, argv, 1, 12), streams = arg(argc, argv, 2, 4);
    int null = open("/dev/null", O_WRONLY);
    DIR* dir = opendir("/proc/self/fd");
    while (struct dirent* e = dir != NULL ? readdir(dir) : NULL) {
        struct stat st;
        int fd = atoi(e->d_name);
        if (fd > 2 && fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) dup2(null, fd);
    }
    for (int it = 0; it < iterations; it++) {
        float* d;
        cudaMalloc(&d, 4 << 20);
        cudaFree(d);
    }
    say(iterations, streams);
    return 0;
}
