// streams: kernels on four streams, run in the ways the timing statistics
// must tell apart (checker/testdata/timing/record.sh records each):
//   concurrent  four streams, no waits: the kernels overlap
//   serial      a cudaStreamSynchronize after each launch
//   one         every kernel on one stream
//   default     every kernel on the legacy default stream
//   graph       the concurrent work captured into a graph (in the global
//               mode, with a launch on a stream outside the capture while
//               it goes on) and launched, then one plain launch: the
//               capture must still work
//   reset       concurrent, then cudaDeviceReset before exit
//   many        20000 short kernels over the four streams, the launch
//               loop's host time printed (the timing's cost per launch)
//   backlog     4096 kernels of 0.2 ms over the four streams: the host
//               gets thousands of launches ahead of the GPU
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

// spin keeps one block busy for about `cycles` clock cycles.
__global__ void spin(long long cycles, int* out) {
    long long start = clock64();
    while (clock64() - start < cycles) {}
    if (threadIdx.x == 0) atomicAdd(out, 1);
}

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "concurrent";
    const int S = 4, K = 4;
    const long long cycles = 2000000;  // about 1 ms at 1.98 GHz
    cudaStream_t s[S];
    for (int i = 0; i < S; i++) CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    int* out;
    CHECK(cudaMalloc(&out, sizeof(int)));
    CHECK(cudaMemset(out, 0, sizeof(int)));
    int expect = S * K;
    if (strcmp(mode, "graph") == 0) {
        cudaEvent_t fork, join[S];
        CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
        for (int i = 0; i < S; i++) CHECK(cudaEventCreateWithFlags(&join[i], cudaEventDisableTiming));
        cudaStream_t other;
        CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
        CHECK(cudaStreamBeginCapture(s[0], cudaStreamCaptureModeGlobal));
        // A launch on a stream outside the capture, while it goes on: timed
        // (the library's first events are created then, in relaxed mode).
        spin<<<1, 32, 0, other>>>(cycles, out);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(fork, s[0]));
        for (int i = 1; i < S; i++) CHECK(cudaStreamWaitEvent(s[i], fork, 0));
        for (int k = 0; k < K; k++)
            for (int i = 0; i < S; i++) spin<<<1, 32, 0, s[i]>>>(cycles, out);
        for (int i = 1; i < S; i++) { CHECK(cudaEventRecord(join[i], s[i])); CHECK(cudaStreamWaitEvent(s[0], join[i], 0)); }
        cudaGraph_t g;
        CHECK(cudaStreamEndCapture(s[0], &g));
        cudaGraphExec_t x;
        CHECK(cudaGraphInstantiateWithFlags(&x, g, 0));
        CHECK(cudaGraphLaunch(x, s[0]));
        spin<<<1, 32, 0, s[1]>>>(cycles, out);
        expect += 2;
    } else if (strcmp(mode, "many") == 0 || strcmp(mode, "backlog") == 0) {
        const bool many = strcmp(mode, "many") == 0;
        const int N = many ? 20000 : 4096;
        auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < N; k++) spin<<<1, 32, 0, s[k % S]>>>(many ? 0 : 2 * cycles / 10, out);
        // many: until the GPU is done; backlog: the launches alone.
        if (many) CHECK(cudaDeviceSynchronize());
        double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
        CHECK(cudaDeviceSynchronize());
        printf("%s: %d launches in %.0f us, %.2f us each\n", mode, N, us, us / N);
        expect = N;
    } else {
        for (int k = 0; k < K; k++)
            for (int i = 0; i < S; i++) {
                cudaStream_t st = s[i];
                if (strcmp(mode, "one") == 0) st = s[0];
                if (strcmp(mode, "default") == 0) st = 0;
                spin<<<1, 32, 0, st>>>(cycles, out);
                CHECK(cudaGetLastError());
                if (strcmp(mode, "serial") == 0) CHECK(cudaStreamSynchronize(st));
            }
    }
    CHECK(cudaDeviceSynchronize());
    int got = 0;
    CHECK(cudaMemcpy(&got, out, sizeof(int), cudaMemcpyDeviceToHost));
    printf("%s: %d kernels ran, %d expected\n", mode, got, expect);
    CHECK(cudaFree(out));
    for (int i = 0; i < S; i++) CHECK(cudaStreamDestroy(s[i]));
    if (strcmp(mode, "reset") == 0) CHECK(cudaDeviceReset());
    return got == expect ? 0 : 1;
}
