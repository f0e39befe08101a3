// The families that need a program's shape: sizes and counts read from
// the command line (used as their default instead), and sub-ranges of a
// block used in stream order (moved to a stream of their own).
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) exit(1); } while (0)
static const size_t MiB = 1 << 20;

__global__ void fill(float* x, int n) {}

static int arg(int argc, char** argv, int i, int def, int hi) {
    int v = i < argc ? atoi(argv[i]) : def;
    return v < 1 || v > hi ? def : v;
}

struct Arena {
    char* base_ = nullptr;
    int slices_ = 0;
    Arena(int slices, size_t bytes, cudaStream_t s) {
        // BEGIN SOLUTION
        slices_ = slices;
        CHECK(cudaMallocAsync(&base_, slices * bytes, s));
        CHECK(cudaMemsetAsync(base_ + bytes, 0, bytes, s));
        // END SOLUTION
    }
    void use(size_t bytes, cudaStream_t s) {
        // BEGIN SOLUTION
        for (int k = 1; k < slices_; k++) {
            fill<<<4, 256, 0, s>>>((float*)(base_ + k * bytes), 256);
            CHECK(cudaMemcpyAsync(&base_[(k - 1) * bytes], base_ + k * bytes, bytes, cudaMemcpyDeviceToDevice, s));
        }
        // END SOLUTION
    }
};

int main(int argc, char** argv) {
    const int slices = arg(argc, argv, 1, 4, 64);
    const size_t bytes = (size_t)arg(argc, argv, 2, 1, 16) * MiB;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    Arena a(slices, bytes, s);
    a.use(bytes, s);
    // BEGIN SOLUTION
    CHECK(cudaFreeAsync(a.base_, s));
    CHECK(cudaStreamSynchronize(s));
    printf("%d slices of %zu bytes\n", slices, bytes);
    // END SOLUTION
    return 0;
}
