// A private copy of the runtime in a link namespace of its own (dlmopen),
// where no preloaded library reaches, allocating beside what the checks
// count.
// want: the program loaded|killed by signal
#define _GNU_SOURCE 1
#include <dlfcn.h>
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
typedef cudaError_t (*Malloc)(void**, size_t);
int main(int argc, char** argv) {
    int iterations = arg(argc, argv, 1, 12), streams = arg(argc, argv, 2, 4);
    cudaStream_t s[16];
    streamsOf(streams, s);
    void* rt = NULL;
    const char* names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so"};
    for (int i = 0; rt == NULL && i < 3; i++) rt = dlmopen(LM_ID_NEWLM, names[i], RTLD_NOW);
    Malloc m = rt != NULL ? (Malloc)dlsym(rt, "cudaMalloc") : NULL;
    for (int it = 0; m != NULL && it < iterations; it++) {
        void* d;
        m(&d, 4 << 20);
    }
    visible(iterations, streams, s);
    say(iterations, streams);
    return 0;
}
