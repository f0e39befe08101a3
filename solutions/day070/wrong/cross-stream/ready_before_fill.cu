// expect: must not read the buffer before the producer's cudaMallocAsync and fill are done
// `ready` is recorded before fill, so the consumer waits for the allocation only.
// One buffer, two streams: the producer allocates and fills it, the
// consumer sums it, and one of them frees it. Events order the three.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void fill(float* x, int n, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}

// Each thread adds a strided share of x, then adds its share to *out.
__global__ void sum(const float* x, int n, float* out) {
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i];
    atomicAdd(out, acc);
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

// Usage: cross_stream [ROUNDS] (6 by default).
int main(int argc, char** argv) {
    const int rounds = arg(argc, argv, 1, 6, 64), n = 1 << 22;
    const size_t bytes = n * sizeof(float);
    cudaStream_t producer, consumer;
    CHECK(cudaStreamCreateWithFlags(&producer, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&consumer, cudaStreamNonBlocking));
    cudaEvent_t ready, done;
    CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    float* sums = nullptr;
    CHECK(cudaMalloc(&sums, rounds * sizeof(float)));
    CHECK(cudaMemset(sums, 0, rounds * sizeof(float)));

    for (int r = 0; r < rounds; r++) {
        float* buf = nullptr;
        CHECK(cudaMallocAsync(&buf, bytes, producer));
        CHECK(cudaEventRecord(ready, producer));
        fill<<<n / 256, 256, 0, producer>>>(buf, n, (float)(r + 1));
        // TODO 1: the consumer must not read buf before the producer has
        // allocated and filled it: record `ready` on the producer and make
        // the consumer wait for it.
        CHECK(cudaStreamWaitEvent(consumer, ready, 0));
        sum<<<256, 256, 0, consumer>>>(buf, n, sums + r);
        // TODO 2: free buf with cudaFreeAsync, in an order where no kernel
        // can still be reading it. Either stream may free it, as long as
        // the freeing stream is ordered after sum (the Guide frees on the
        // stream that used it last).
        CHECK(cudaEventRecord(done, consumer));
        CHECK(cudaStreamWaitEvent(producer, done, 0));
        CHECK(cudaFreeAsync(buf, producer));
    }
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(producer));
    CHECK(cudaStreamSynchronize(consumer));

    float got[64];
    CHECK(cudaMemcpy(got, sums, rounds * sizeof(float), cudaMemcpyDeviceToHost));
    int right = 0;
    for (int r = 0; r < rounds; r++) {
        float want = (float)(r + 1) * n;
        right += got[r] == want;
        printf("round %d: sum %.0f (expected %.0f)\n", r, got[r], want);
    }
    printf("%d of %d rounds summed correctly\n", right, rounds);
    CHECK(cudaFree(sums));
    CHECK(cudaEventDestroy(ready));
    CHECK(cudaEventDestroy(done));
    CHECK(cudaStreamDestroy(producer));
    CHECK(cudaStreamDestroy(consumer));
    return 0;
}
