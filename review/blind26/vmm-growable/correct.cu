// kind: correct
// mistake: none. Design: always move, into a range of EXACTLY the rounded request (placed where the driver likes), and the buffer is then always ONE range, so a move opens all the moved chunks with ONE cuMemSetAccess over the span and takes the old mappings down with ONE cuMemUnmap over the mapped span (both calls accept a span of several allocations mapped side by side; NVIDIA's cuvector sample unmaps its whole span in one call), after cuCtxSynchronize; a failed move unmaps what it mapped and frees the new range, the old one kept; the handles are kept for release; a grow's new chunk is exactly what is missing, created, mapped at mapped_ and opened, each failure undone; release: ONE cuMemUnmap over the mapped span, then each handle released in order, then the one range freed
// why it is wrong: it is not: the design the wrong files of this exercise are made from
// source: own
// A growable device buffer on the virtual memory management (VMM) API:
// reserve a large range of addresses once, then map physical memory into it
// as the buffer grows. Within the reservation the pointer never changes;
// past it, the buffer needs more addresses (right after it, or a larger
// reservation the same memory is mapped into), and still nothing is copied.
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
        return (n + granularity_ - 1) / granularity_ * granularity_;
    }

    // grow makes the first bytes of the buffer usable, keeping what is
    // there. Past the reservation it needs more addresses: in place, where
    // the driver grants those right after it, or in a larger reservation,
    // where data() changes; either way nothing is copied.
    //
    // The design: always move, into a range of exactly the rounded
    // request. The buffer is then always one range, so release() and a
    // move can each take the whole mapped span down with ONE cuMemUnmap
    // and open a moved span with ONE cuMemSetAccess (both calls accept a
    // span of several allocations mapped side by side). The caller of
    // this buffer holds data() only between grows and is ready for it to
    // change; a move waits for the device (the old addresses may still be
    // written by work on any stream), which the caller pays once per move.
    bool grow(size_t bytes) {
        size_t want = round(bytes);
        if (want <= mapped_) return true;
        if (want > reserved_ && !move(want)) return false;
        const size_t add = want - mapped_;
        CUmemGenericAllocationHandle h;
        CU(cuMemCreate(&h, add, &prop_, 0));
        if (cuMemMap(base_ + mapped_, add, 0, h, 0) != CUDA_SUCCESS) {
            cuMemRelease(h);
            return false;
        }
        if (cuMemSetAccess(base_ + mapped_, add, &access_, 1) != CUDA_SUCCESS) {
            cuMemUnmap(base_ + mapped_, add);
            cuMemRelease(h);
            return false;
        }
        chunks_.push_back({h, add});
        mapped_ = want;
        return true;
    }

    // release gives everything back: each chunk's mapping and memory, then
    // the addresses. It says whether the driver accepted each step.
    bool release() {
        // Every mapping first (one call over the span: the chunks lie side
        // by side from base_), then the memory, then the addresses.
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
    // move puts the buffer into a new range of size bytes: every chunk
    // mapped again at its offset, the whole span opened at once; then,
    // once no work can still use the old addresses, the old span unmapped
    // and the old range freed. A failure leaves the old range as it was.
    bool move(size_t size) {
        CUdeviceptr to = 0;
        CU(cuMemAddressReserve(&to, size, granularity_, 0, 0));
        size_t off = 0;
        bool ok = true;
        for (const Chunk& c : chunks_) {
            if (cuMemMap(to + off, c.bytes, 0, c.handle, 0) != CUDA_SUCCESS) {
                ok = false;
                break;
            }
            off += c.bytes;
        }
        if (ok && off > 0 && cuMemSetAccess(to, off, &access_, 1) != CUDA_SUCCESS) ok = false;
        if (!ok) {
            if (off > 0) cuMemUnmap(to, off);
            cuMemAddressFree(to, size);
            return false;
        }
        CU(cuCtxSynchronize());
        if (mapped_ > 0) CU(cuMemUnmap(base_, mapped_));
        CU(cuMemAddressFree(base_, reserved_));
        base_ = to;
        reserved_ = size;
        return true;
    }

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

// Usage: growable [MIB [RESERVE_MIB [THEN_MIB [TAKEN]]]] (grows to 100 MiB
// in a 64 MiB reservation by default; with THEN_MIB, grows again to it,
// which may move the buffer while it holds several chunks; with TAKEN 1,
// the addresses right after the reservation are reserved first, so that
// the buffer cannot grow in place there).
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
    const bool taken = arg(argc, argv, 4, 0, 1) == 1;
    GrowableBuffer buf;
    if (!buf.reserve(reservation)) return 1;
    const size_t g = buf.granularity(), reserved = (reservation + g - 1) / g * g;
    CUdeviceptr blocker = 0;
    size_t blocked = 0;
    if (taken) {
        // The address is only a hint: the driver may place a range
        // elsewhere (on the H200 it did, for one of 2 MiB). Ask again, with
        // other sizes and alignments, until a range starts exactly there;
        // one placed elsewhere is given back at once. The checks of this
        // case are made only when the line below says yes.
        const CUdeviceptr after = (CUdeviceptr)buf.data() + reserved;
        for (size_t align : {g, (size_t)0})
            for (size_t bytes : {reserved, g, 4 * reserved, (size_t)1 << 30}) {
                CUdeviceptr got = 0;
                if (blocker != 0 || cuMemAddressReserve(&got, bytes, align, after, 0) != CUDA_SUCCESS) continue;
                if (got == after) blocker = got, blocked = bytes;
                else cuMemAddressFree(got, bytes);
            }
        printf("addresses after the reservation taken: %s\n", blocker != 0 ? "yes" : "no");
    }
    // A grow that fails stops the program, giving back what was made:
    // after the device's work, which may still use what release() unmaps.
    auto failed = [&](size_t bytes) {
        printf("grow to %zu bytes failed\n", bytes);
        cudaDeviceSynchronize();
        buf.release();
        if (blocker != 0) cuMemAddressFree(blocker, blocked);
        return 1;
    };
    if (!buf.grow(small)) return failed(small);
    printf("grow(1 MiB): %zu bytes mapped (granularity %zu)\n", buf.mapped(), buf.granularity());
    size_t n1 = small / sizeof(int);
    // The first part is written on a stream of the caller's own, which
    // nothing else waits for: a move must wait for it too.
    cudaStream_t side;
    if (cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) != cudaSuccess) {
        printf("no stream\n");
        return 1;
    }
    fill<<<(unsigned)((n1 + 255) / 256), 256, 0, side>>>(buf.data(), n1, 1);
    int* before = buf.data();
    if (!buf.grow(large)) return failed(large);
    printf("grow(%zu MiB) in a %zu MiB reservation: %zu bytes mapped\n", large >> 20, reservation >> 20, buf.mapped());
    // The caller is done with its stream before the default stream
    // writes the buffer again.
    cudaStreamSynchronize(side);
    cudaStreamDestroy(side);
    size_t n2 = large / sizeof(int);
    fill<<<(unsigned)((n2 - n1 + 255) / 256), 256>>>(buf.data() + n1, n2 - n1, 2);
    fill<<<1, 1>>>(buf.data(), 1, 1);  // the old part is written again at its new addresses

    int* middle = buf.data();
    int third = 3;
    if (then > large) {
        if (!buf.grow(then)) return failed(then);
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
    cudaMemcpy(&first, buf.data() + n1 - 1, sizeof first, cudaMemcpyDeviceToHost);  // written only before the grow: int 0 was written again after it
    cudaMemcpy(&last, buf.data() + n2 - 1, sizeof last, cudaMemcpyDeviceToHost);
    printf("moved to a larger reservation: %s\n", before == buf.data() ? "no" : "yes");
    printf("old data kept: %d, new region: %d\n", first, last);
    int* after = buf.data();
    size_t mapped = buf.mapped();
    bool released = buf.release();
    printf("release: %s\n", released ? "ok" : "failed");
    if (blocker != 0) cuMemAddressFree(blocker, blocked);
    // Addresses given back can be reserved again where they were: ask the
    // driver for each range the buffer had, at its old start.
    bool back = free_again((CUdeviceptr)before, reserved) && free_again((CUdeviceptr)after, mapped);
    printf("every reservation given back: %s\n", back ? "yes" : "no");
    return (first == 1 && last == 2 && third == 3 && released && back) ? 0 : 1;
}
