// expect: each of the 4 streams allocates its own buffers
// Everything on the default stream: the streams created never get work.
// A pipeline over several streams: each iteration copies in, computes and
// copies out on its stream, with its buffers allocated in stream order.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cinttypes>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

// scale stands for real work: each of its few blocks spins about 0.2 ms
// first, so that one stream's kernel outlasts the next stream's copy in
// and the streams' kernels can run side by side.
__global__ void scale(const float* in, float* out, int n, float factor) {
    long long t0 = clock64();
    while (clock64() - t0 < 400000) {}
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = factor * in[i];
}

// arg is the program's argument i as a number from 1 to hi, or def when
// it is not given; the course's checks run it with other inputs too.
static int arg(int argc, char** argv, int i, int def, int hi) {
    if (argc <= i) return def;
    int v = atoi(argv[i]);
    if (v < 1 || v > hi) {
        fprintf(stderr, "argument %d is %s: give a number from 1 to %d\n", i, argv[i], hi);
        exit(2);
    }
    return v;
}

// pinned says whether p is page-locked host memory that the runtime knows
// (cudaMallocHost, cudaHostAlloc or cudaHostRegister).
static bool pinned(const void* p) {
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeHost;
}

// Usage: async_pipeline [ITERATIONS [STREAMS]] (12 iterations on 4 streams
// by default). Each iteration copies its slice of the input to the GPU,
// scales it by 2 into a buffer of its own, and copies the result back.
int main(int argc, char** argv) {
    const int iterations = arg(argc, argv, 1, 12, 64), streams = arg(argc, argv, 2, 4, 16), n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t s[16];
    // Non-blocking: nothing orders these streams but what the program asks for.
    for (int i = 0; i < streams; i++) CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));

    float* in = nullptr;
    float* out = nullptr;
    // TODO 1: the host's input and output, iterations * n floats each, in
    // memory the GPU can copy from and to while the host goes on.
    CHECK(cudaMallocHost(&in, iterations * bytes));
    CHECK(cudaMallocHost(&out, iterations * bytes));
    for (size_t i = 0; i < (size_t)iterations * n; i++) in[i] = (float)(i % 1000);
    printf("host buffers pinned: %s\n", pinned(in) && pinned(out) ? "yes" : "no");

    for (int it = 0; it < iterations; it++) {
        cudaStream_t stream = 0;
        const float* src = in + (size_t)it * n;
        float* dst = out + (size_t)it * n;
        // TODO 2: on stream, and with nothing that waits on the host:
        // allocate a device buffer for the input and one for the result,
        // copy src in, launch scale (factor 2), copy the result to dst,
        // and free both buffers.
        float* d_in = nullptr;
        float* d_out = nullptr;
        CHECK(cudaMallocAsync(&d_in, bytes, stream));
        CHECK(cudaMallocAsync(&d_out, bytes, stream));
        CHECK(cudaMemcpyAsync(d_in, src, bytes, cudaMemcpyHostToDevice, stream));
        scale<<<64, 256, 0, stream>>>(d_in, d_out, n, 2.0f);
        CHECK(cudaMemcpyAsync(dst, d_out, bytes, cudaMemcpyDeviceToHost, stream));
        CHECK(cudaFreeAsync(d_in, stream));
        CHECK(cudaFreeAsync(d_out, stream));
    }
    CHECK(cudaGetLastError());
    for (int i = 0; i < streams; i++) CHECK(cudaStreamSynchronize(s[i]));

    int right = 0;
    for (int it = 0; it < iterations; it++) {
        bool ok = true;
        for (size_t i = (size_t)it * n; i < (size_t)(it + 1) * n && ok; i++) ok = out[i] == 2.0f * in[i];
        right += ok;
    }
    cudaMemPool_t pool;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    uint64_t high = 0;
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high));
    printf("%d iterations on %d streams: %d of %d results right; pool used high watermark: %" PRIu64 " bytes\n",
           iterations, streams, right, iterations, high);
    // TODO 3: give the host's memory back.
    CHECK(cudaFreeHost(in));
    CHECK(cudaFreeHost(out));
    printf("host buffers given back: %s\n", !pinned(in) && !pinned(out) ? "yes" : "no");
    for (int i = 0; i < streams; i++) CHECK(cudaStreamDestroy(s[i]));
    return right == iterations ? 0 : 1;
}
