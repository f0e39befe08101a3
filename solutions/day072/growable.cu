// A growable device buffer on the virtual memory management (VMM) API:
// reserve a large range of addresses once, then map physical memory into it
// as the buffer grows. The pointer never changes, so nothing is copied.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda.h>
#include <cuda_runtime.h>

#define CU(call)                                                                  \
    do {                                                                          \
        CUresult r_ = (call);                                                     \
        if (r_ != CUDA_SUCCESS) {                                                 \
            const char* s_ = nullptr;                                             \
            cuGetErrorString(r_, &s_);                                            \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, s_ ? s_ : "?"); \
            return false;                                                         \
        }                                                                         \
    } while (0)

class GrowableBuffer {
public:
    // Reserves capacity bytes of addresses (rounded up to the granularity);
    // no memory is behind them yet.
    bool reserve(size_t capacity) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = 0;
        CU(cuMemGetAllocationGranularity(&granularity_, &prop_, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        reserved_ = round(capacity);
        CU(cuMemAddressReserve(&base_, reserved_, granularity_, 0, 0));
        access_.location = prop_.location;
        access_.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        return true;
    }

    // Makes the first bytes of the buffer usable, keeping what is there.
    bool grow(size_t bytes) {
        size_t want = round(bytes);
        if (want <= mapped_) return true;
        if (want > reserved_) return false;
        // TODO: make a physical allocation of (want - mapped_) bytes with
        // cuMemCreate, map it at base_ + mapped_ with cuMemMap, allow reads
        // and writes with cuMemSetAccess, and keep the handle in chunks_ so
        // that release() can give it back. Then mapped_ = want.
        // BEGIN SOLUTION
        size_t bytesMore = want - mapped_;
        CUmemGenericAllocationHandle h;
        CU(cuMemCreate(&h, bytesMore, &prop_, 0));
        CU(cuMemMap(base_ + mapped_, bytesMore, 0, h, 0));
        CU(cuMemSetAccess(base_ + mapped_, bytesMore, &access_, 1));
        chunks_.push_back({h, bytesMore});
        mapped_ = want;
        return true;
        // STUB
        // return false;
        // END SOLUTION
    }

    // Unmaps and frees every chunk, then the addresses.
    void release() {
        size_t offset = 0;
        for (const Chunk& c : chunks_) {
            cuMemUnmap(base_ + offset, c.bytes);
            cuMemRelease(c.handle);
            offset += c.bytes;
        }
        chunks_.clear();
        if (base_ != 0) cuMemAddressFree(base_, reserved_);
        base_ = 0;
        mapped_ = 0;
    }

    int* data() const { return reinterpret_cast<int*>(base_); }
    size_t mapped() const { return mapped_; }
    size_t granularity() const { return granularity_; }

private:
    size_t round(size_t n) const { return (n + granularity_ - 1) / granularity_ * granularity_; }
    struct Chunk {
        CUmemGenericAllocationHandle handle;
        size_t bytes;
    };
    CUmemAllocationProp prop_ = {};
    CUmemAccessDesc access_ = {};
    CUdeviceptr base_ = 0;
    size_t granularity_ = 0, reserved_ = 0, mapped_ = 0;
    std::vector<Chunk> chunks_;
};

__global__ void fill(int* x, size_t n, int v) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
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

// Usage: growable [MIB] (grows to 100 MiB by default).
int main(int argc, char** argv) {
    // cudaFree(0) creates the context that the driver calls below use.
    if (cudaFree(0) != cudaSuccess) {
        printf("no CUDA device\n");
        return 1;
    }
    GrowableBuffer buf;
    if (!buf.reserve(1ull << 30)) return 1;
    const size_t small = 1u << 20, large = (size_t)arg(argc, argv, 1, 100, 1000) << 20;
    if (!buf.grow(small)) {
        printf("grow to %zu bytes failed\n", small);
        return 1;
    }
    printf("grow(1 MiB): %zu bytes mapped (granularity %zu)\n", buf.mapped(), buf.granularity());
    size_t n1 = small / sizeof(int);
    fill<<<(unsigned)((n1 + 255) / 256), 256>>>(buf.data(), n1, 1);
    int* before = buf.data();
    if (!buf.grow(large)) {
        printf("grow to %zu bytes failed\n", large);
        return 1;
    }
    printf("grow(%zu MiB): %zu bytes mapped\n", large >> 20, buf.mapped());
    size_t n2 = large / sizeof(int);
    fill<<<(unsigned)((n2 - n1 + 255) / 256), 256>>>(buf.data() + n1, n2 - n1, 2);
    if (cudaDeviceSynchronize() != cudaSuccess) {
        printf("a kernel failed\n");
        return 1;
    }
    int first = 0, last = 0;
    cudaMemcpy(&first, buf.data(), sizeof first, cudaMemcpyDeviceToHost);
    cudaMemcpy(&last, buf.data() + n2 - 1, sizeof last, cudaMemcpyDeviceToHost);
    printf("same address after growing: %s\n", before == buf.data() ? "yes" : "no");
    printf("old data kept: %d, new region: %d\n", first, last);
    buf.release();
    return (first == 1 && last == 2) ? 0 : 1;
}
