// Where Day 69's no-warm-up loops spend their time (expert review 5):
// nowarm.cu's two loops, in its order, with the host clock read around
// the first allocation call, after the first iteration is queued, after
// the last, and after the stream's synchronisation. Nothing is added
// between the calls, so the loops run as nowarm.cu runs them. Run it
// with a warm JIT cache (built without -arch, as nowarm.cu is): the warm
// 0.9x of Day 69 is either the asynchronous loop's first cudaMallocAsync
// (the pool's first reservation) or something else, and this says which.
#include <chrono>
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void square_roots(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = sqrtf((float)i);
}

using clk = std::chrono::steady_clock;
static double ms(clk::time_point a, clk::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

int main() {
    const int n = 1 << 20, iterations = 100;   // 4 MiB of floats, as nowarm.cu
    const size_t bytes = n * sizeof(float);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    const char* name[2] = {"sync", "async"};
    double whole[2];
    for (int mode = 0; mode < 2; mode++) {
        clk::time_point t0 = clk::now(), first_alloc, first_iter, queued;
        for (int it = 0; it < iterations; it++) {
            float* d = nullptr;
            if (mode == 0) CHECK(cudaMalloc(&d, bytes));
            else           CHECK(cudaMallocAsync(&d, bytes, s));
            if (it == 0) first_alloc = clk::now();
            square_roots<<<(n + 255) / 256, 256, 0, s>>>(d, n);
            if (mode == 0) CHECK(cudaFree(d));
            else           CHECK(cudaFreeAsync(d, s));
            if (it == 0) first_iter = clk::now();
        }
        queued = clk::now();
        CHECK(cudaStreamSynchronize(s));
        clk::time_point done = clk::now();
        whole[mode] = ms(t0, done);
        printf("%s.first_alloc_ms %.3f\n", name[mode], ms(t0, first_alloc));
        printf("%s.first_iteration_ms %.3f\n", name[mode], ms(t0, first_iter));
        printf("%s.other_iterations_queued_ms %.3f\n", name[mode], ms(first_iter, queued));
        printf("%s.sync_ms %.3f\n", name[mode], ms(queued, done));
        printf("%s.loop_ms %.3f\n", name[mode], whole[mode]);
    }
    printf("speedup %.2f\n", whole[0] / whole[1]);
    CHECK(cudaStreamDestroy(s));
    return 0;
}
