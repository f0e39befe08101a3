// A fixed-size block pool: one cudaMalloc cut into equal, aligned blocks,
// with the free blocks kept on a stack, and frees checked.
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstddef>
#include <cstdint>
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

// Every block starts on this boundary, as cudaMalloc's own allocations do
// (it aligns to at least 256 bytes): a kernel may then read any block with
// aligned vector loads.
constexpr size_t kAlign = 256;

class BlockPool {
public:
    // init makes one cudaMalloc for `blocks` blocks of at least blockBytes
    // each, every block aligned to kAlign, and puts them all on the free
    // list.
    cudaError_t init(size_t blockBytes, size_t blocks) {
        // TODO 1: choose the distance between two blocks (stride_), make the
        // one cudaMalloc, and fill free_ (and whatever deallocate() needs
        // to tell a free block from a used one).
        (void)blockBytes;
        (void)blocks;
        return cudaErrorNotYetImplemented;
    }

    // allocate returns a free block, or nullptr when none is left.
    void* allocate() {
        // TODO 2: take a block off the free list.
        return nullptr;
    }

    // deallocate gives a block back. It refuses (returns false) a pointer
    // that is not the start of one of the pool's blocks, and a block that
    // is already free: a double free would put one block on the list
    // twice, and two later allocations would share it.
    bool deallocate(void* block) {
        // TODO 3: check the pointer, then put the block back.
        (void)block;
        return false;
    }

    size_t available() const { return free_.size(); }
    void destroy() { cudaFree(base_); base_ = nullptr; free_.clear(); }

private:
    char* base_ = nullptr;
    size_t stride_ = 0;
    std::vector<char*> free_;
    // TODO 0: what else the pool needs to know to refuse a bad free.
};

__global__ void stamp(int* block, int words, int value) {
    for (int i = threadIdx.x; i < words; i += blockDim.x) block[i] = value;
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
    const size_t blockBytes = 1000;        // not a multiple of the alignment
    const int blocks = arg(argc, argv, 1, 16, 1024);
    BlockPool pool;
    CHECK(pool.init(blockBytes, blocks));
    printf("pool of %d blocks of %zu bytes\n", blocks, blockBytes);

    std::vector<char*> taken;
    for (int i = 0; i < blocks; i++) {
        char* b = static_cast<char*>(pool.allocate());
        if (b == nullptr) {
            printf("allocate %d returned nullptr\n", i);
            return 1;
        }
        stamp<<<1, 256>>>((int*)b, (int)(blockBytes / sizeof(int)), i);
        taken.push_back(b);
    }
    CHECK(cudaGetLastError());
    printf("allocate on an empty pool: %s\n", pool.allocate() == nullptr ? "nullptr" : "a block");
    // The kernels must be done with the blocks before any goes back: the
    // free list is the host's, and a block on it can be handed out again
    // at once.
    CHECK(cudaDeviceSynchronize());
    printf("available after taking %d: %zu\n", blocks, pool.available());

    std::vector<char*> sorted = taken;
    std::sort(sorted.begin(), sorted.end());
    bool aligned = true, apart = true;
    for (size_t k = 0; k < sorted.size(); k++) {
        aligned = aligned && (uintptr_t)sorted[k] % kAlign == 0;
        if (k > 0) apart = apart && sorted[k] >= sorted[k - 1] + blockBytes;
    }
    printf("blocks aligned to %zu bytes: %s, overlapping: %s\n", kAlign, aligned ? "yes" : "no", apart ? "no" : "yes");

    bool gaveBack = true;
    for (int i = 0; i < blocks / 2; i++) gaveBack = pool.deallocate(taken[i]) && gaveBack;
    printf("available after giving back %d: %zu%s\n", blocks / 2, pool.available(), gaveBack ? "" : " (a deallocate refused a good block)");
    printf("double free refused: %s\n", pool.deallocate(taken[0]) ? "no" : "yes");
    printf("pointer inside a block refused: %s\n", pool.deallocate(taken[blocks - 1] + 4) ? "no" : "yes");
    int outside = 0;
    printf("pointer outside the pool refused: %s\n", pool.deallocate(&outside) ? "no" : "yes");
    printf("available after the refusals: %zu\n", pool.available());

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
