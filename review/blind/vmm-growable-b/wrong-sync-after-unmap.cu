// kind: the wait placed after the unmap it should protect (output identical, mostly)
// mistake: The move has its wait, but after cuMemUnmap of the old range and before cuMemAddressFree: the student reads 'wait before you give the old range back' as a wait before freeing the addresses.
// why it is wrong: The unmap is what takes the memory from under the old addresses; a kernel queued on them before the move (the harness's fill of the first megabyte) may still be running when they are unmapped, and it faults or its writes are lost. The reservation and mapping calls before the unmap take long enough that the fill has usually finished, so the data are right on most runs.
// source: own (the lesson's pitfall 'Unmapping under running kernels': 'a move without any wait lost the data a kernel queued just before it was still writing')
// A growable device buffer on the virtual memory management (VMM) API:
// reserve a large range of addresses once, then map physical memory into it
// as the buffer grows. Within the reservation the pointer never changes;
// past it, the same memory is mapped into a larger reservation, and still
// nothing is copied.
#include <cstdio>
#include <algorithm>
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

    // round is n rounded up to a whole number of granularity units: the
    // only sizes cuMemCreate, cuMemMap and cuMemAddressReserve accept.
    size_t round(size_t n) const {
        const size_t g = granularity_;
        return n % g == 0 ? n : n + (g - n % g);
    }

    // grow makes the first bytes of the buffer usable, keeping what is
    // there. Past the reservation the buffer moves to a larger one: its
    // memory is mapped again at the new addresses, never copied, and
    // data() changes.
    bool grow(size_t bytes) {
        size_t want = round(bytes);
        if (want <= mapped_) return true;
        if (want > reserved_) {
            // The move: a range at least twice the old one, so that the next
            // grows fit; every chunk mapped again at its own offset and the
            // whole mapped part opened; the old range unmapped once the GPU
            // is done with its addresses, and given back.
            const size_t bigger = std::max(want, 2 * reserved_);
            CUdeviceptr moved = 0;
            CU(cuMemAddressReserve(&moved, bigger, granularity_, 0, 0));
            size_t offset = 0;
            for (const Chunk& c : chunks_) {
                CU(cuMemMap(moved + offset, c.bytes, 0, c.handle, 0));
                offset += c.bytes;
            }
            if (mapped_ > 0) CU(cuMemSetAccess(moved, mapped_, &access_, 1));
            if (mapped_ > 0) CU(cuMemUnmap(base_, mapped_));
            if (cudaDeviceSynchronize() != cudaSuccess) return false;   // nothing may use the old range when it is freed
            CU(cuMemAddressFree(base_, reserved_));
            base_ = moved;
            reserved_ = bigger;
            // and on to the ordinary grow, in the new range
        }
        Chunk c = {0, want - mapped_};
        CU(cuMemCreate(&c.handle, c.bytes, &prop_, 0));
        if (cuMemMap(base_ + mapped_, c.bytes, 0, c.handle, 0) != CUDA_SUCCESS) {
            cuMemRelease(c.handle);
            fprintf(stderr, "grow: cuMemMap of %zu bytes at offset %zu failed\n", c.bytes, mapped_);
            return false;
        }
        chunks_.push_back(c);
        CU(cuMemSetAccess(base_ + mapped_, c.bytes, &access_, 1));
        mapped_ = want;
        return true;
    }

    // release gives everything back: each chunk's mapping and memory, then
    // the addresses. It says whether the driver accepted each step.
    bool release() {
        // Unmap (one call over every mapping), release the handles, and
        // only then free the addresses: a mapped range cannot be freed.
        if (mapped_ > 0) CU(cuMemUnmap(base_, mapped_));
        for (const Chunk& c : chunks_) CU(cuMemRelease(c.handle));
        chunks_.clear();
        if (base_ != 0) CU(cuMemAddressFree(base_, reserved_));
        base_ = 0;
        mapped_ = reserved_ = 0;
        return true;
    }

    int* data() const { return reinterpret_cast<int*>(base_); }
    size_t mapped() const { return mapped_; }
    size_t granularity() const { return granularity_; }

private:
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

// free_again says whether the bytes at addr are free addresses: a new
// reservation asked to start there gets them (and gives them back).
static bool free_again(CUdeviceptr addr, size_t bytes) {
    CUdeviceptr got = 0;
    if (cuMemAddressReserve(&got, bytes, 0, addr, 0) != CUDA_SUCCESS) return false;
    cuMemAddressFree(got, bytes);
    return got == addr;
}

// Usage: growable [MIB [RESERVE_MIB [THEN_MIB]]] (grows to 100 MiB in a
// 64 MiB reservation by default; with THEN_MIB, grows again to it, which
// may move the buffer while it holds several chunks).
int main(int argc, char** argv) {
    // Since CUDA 12, cudaSetDevice makes the device's primary context
    // current, and the driver calls below use it.
    if (cuInit(0) != CUDA_SUCCESS || cudaSetDevice(0) != cudaSuccess) {
        printf("no CUDA device\n");
        return 1;
    }
    const size_t small = 1u << 20, large = (size_t)arg(argc, argv, 1, 100, 1000) << 20;
    const size_t reservation = (size_t)arg(argc, argv, 2, 64, 1000) << 20;
    const size_t then = (size_t)arg(argc, argv, 3, 0, 1000) << 20;
    GrowableBuffer buf;
    if (!buf.reserve(reservation)) return 1;
    const size_t g = buf.granularity(), reserved = (reservation + g - 1) / g * g;
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
    printf("grow(%zu MiB) in a %zu MiB reservation: %zu bytes mapped\n", large >> 20, reservation >> 20, buf.mapped());
    size_t n2 = large / sizeof(int);
    fill<<<(unsigned)((n2 - n1 + 255) / 256), 256>>>(buf.data() + n1, n2 - n1, 2);
    fill<<<1, 1>>>(buf.data(), 1, 1);  // the old part is written again at its new addresses

    int* middle = buf.data();
    int third = 3;
    if (then > large) {
        if (!buf.grow(then)) {
            printf("grow to %zu bytes failed\n", then);
            return 1;
        }
        printf("grow(%zu MiB) then: %zu bytes mapped, moved again: %s\n", then >> 20, buf.mapped(), middle == buf.data() ? "no" : "yes");
        size_t n3 = then / sizeof(int);
        fill<<<(unsigned)((n3 - n2 + 255) / 256), 256>>>(buf.data() + n2, n3 - n2, 3);
        fill<<<1, 1>>>(buf.data(), 1, 1);
        if (cudaDeviceSynchronize() != cudaSuccess) {
            printf("a kernel failed\n");
            return 1;
        }
        cudaMemcpy(&third, buf.data() + n3 - 1, sizeof third, cudaMemcpyDeviceToHost);
        printf("third region: %d\n", third);
    }
    if (cudaDeviceSynchronize() != cudaSuccess) {
        printf("a kernel failed\n");
        return 1;
    }
    int first = 0, last = 0;
    cudaMemcpy(&first, buf.data(), sizeof first, cudaMemcpyDeviceToHost);
    cudaMemcpy(&last, buf.data() + n2 - 1, sizeof last, cudaMemcpyDeviceToHost);
    printf("moved to a larger reservation: %s\n", before == buf.data() ? "no" : "yes");
    printf("old data kept: %d, new region: %d\n", first, last);
    int* after = buf.data();
    size_t mapped = buf.mapped();
    bool released = buf.release();
    printf("release: %s\n", released ? "ok" : "failed");
    // Addresses given back can be reserved again where they were: ask the
    // driver for each range the buffer had, at its old start.
    bool back = free_again((CUdeviceptr)before, reserved) && free_again((CUdeviceptr)after, mapped);
    printf("every reservation given back: %s\n", back ? "yes" : "no");
    return (first == 1 && last == 2 && third == 3 && released && back) ? 0 : 1;
}
