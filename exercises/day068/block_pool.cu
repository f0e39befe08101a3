// A fixed-size block pool: one cudaMalloc cut into equal blocks, with the
// free blocks kept on a stack.
#include <cstdio>
#include <cstdlib>
#include <cstddef>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                        \
    do {                                                                   \
        cudaError_t err_ = (call);                                         \
        if (err_ != cudaSuccess) {                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,  \
                    cudaGetErrorString(err_));                             \
            return 1;                                                      \
        }                                                                  \
    } while (0)

class BlockPool {
public:
    cudaError_t init(size_t blockBytes, size_t blocks) {
        blockBytes_ = blockBytes;
        cudaError_t err = cudaMalloc(&base_, blockBytes * blocks);
        if (err != cudaSuccess) return err;
        for (size_t i = blocks; i > 0; i--) free_.push_back(base_ + (i - 1) * blockBytes);
        return cudaSuccess;
    }

    // Returns a free block, or nullptr when none is left.
    void* allocate() {
        // TODO(1): take a block off the free list and return it.
        return nullptr;
    }

    // Gives a block back to the pool.
    void deallocate(void* block) {
        // TODO(2): put the block back on the free list.
        (void)block;
    }

    size_t available() const { return free_.size(); }
    void destroy() { cudaFree(base_); base_ = nullptr; free_.clear(); }

private:
    char* base_ = nullptr;
    size_t blockBytes_ = 0;
    std::vector<char*> free_;
};

__global__ void stamp(int* block, int words, int value) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < words) block[i] = value;
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

// Usage: block_pool [BLOCKS] (16 by default).
int main(int argc, char** argv) {
    const size_t blockBytes = 64 << 10;   // 64 KiB blocks
    const int blocks = arg(argc, argv, 1, 16, 1024);
    BlockPool pool;
    CHECK(pool.init(blockBytes, blocks));
    printf("pool of %d blocks of %zu bytes\n", blocks, blockBytes);

    std::vector<void*> taken;
    for (int i = 0; i < blocks; i++) {
        void* b = pool.allocate();
        if (b == nullptr) {
            printf("allocate %d returned nullptr\n", i);
            return 1;
        }
        stamp<<<(int)(blockBytes / sizeof(int) + 255) / 256, 256>>>((int*)b, (int)(blockBytes / sizeof(int)), i);
        taken.push_back(b);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("available after taking %d: %zu\n", blocks, pool.available());

    for (int i = 0; i < blocks / 2; i++) pool.deallocate(taken[i]);
    printf("available after giving back %d: %zu\n", blocks / 2, pool.available());

    for (int i = 0; i < blocks / 2; i++) {
        if (pool.allocate() == nullptr) {
            printf("refill %d returned nullptr\n", i);
            return 1;
        }
    }
    printf("available after refill: %zu\n", pool.available());
    pool.destroy();
    return 0;
}
