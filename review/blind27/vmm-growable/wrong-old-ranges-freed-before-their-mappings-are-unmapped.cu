// kind: wrong
// mistake: move frees the old ranges first and unmaps the old mappings after (the two lines in the other order), 'the addresses go first, the memory behind them after'
// why it is wrong: only when the buffer moves: an address range with mappings in it cannot be freed: cuMemAddressFree refuses it and the move stops there, with the new range already mapped ('grow to ... bytes failed'); a buffer that grows in place never moves and is right, so this shows in the hidden run with the addresses after the reservation taken (TAKEN 1), or wherever the driver does not place the extension at the hint
// source: related: ROCm/ROCR-Runtime#257 (an address range freed while a handle is still mapped in it is refused as still in use)
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
        ranges_.assign(1, Range{base_, reserved_});
        access_.location = prop_.location;
        access_.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        return true;
    }

    // round is n rounded up to a whole number of granularity units: the
    // only sizes cuMemCreate, cuMemMap and cuMemAddressReserve accept.
    size_t round(size_t n) const {
        // TODO 1: round n up to a multiple of granularity_.
        return (n + granularity_ - 1) / granularity_ * granularity_;
    }

    // grow makes the first bytes of the buffer usable, keeping what is
    // there. Past the reservation it needs more addresses: in place, where
    // the driver grants those right after it, or in a larger reservation,
    // where data() changes; either way nothing is copied.
    //
    // In place first: whoever holds a pointer into the buffer keeps it,
    // and nothing waits. Past the reservation the buffer asks for an
    // extension as large as the whole request, starting right after its
    // last range, so that the next grows find room in place too; the
    // buffer is then several ranges side by side, and a chunk never
    // crosses a range's end (new memory is cut at each end). Only when
    // the driver puts the extension elsewhere is it given back at once,
    // and the buffer moves into one range of the same total size: that
    // move waits for the device, since work may still use the old
    // addresses.
    bool grow(size_t bytes) {
        size_t want = round(bytes);
        if (want <= mapped_) return true;
        if (want > reserved_) {
            // TODO 2: make room past the reservation, keeping the data: your
            // design (grow in place where you can, or move; see the lesson).
            // Every range you reserve must be given back in the end.
            const size_t extra = want;
            const CUdeviceptr hint = base_ + reserved_;
            CUdeviceptr got = 0;
            if (cuMemAddressReserve(&got, extra, 0, hint, 0) == CUDA_SUCCESS) {
                if (got == hint) {
                    ranges_.push_back({got, extra});
                    reserved_ += extra;
                } else {
                    CU(cuMemAddressFree(got, extra));
                    if (!move(reserved_ + extra)) return false;
                }
            } else if (!move(reserved_ + extra)) {
                return false;
            }
        }
        // TODO 3: make the memory from mapped_ to want: a physical
        // allocation, mapped right after what is mapped and opened for
        // reads and writes, its handle kept in chunks_ for release().
        while (mapped_ < want) {
            const size_t piece = std::min(want, rangeEnd(mapped_)) - mapped_;
            CUmemGenericAllocationHandle h;
            CU(cuMemCreate(&h, piece, &prop_, 0));
            if (cuMemMap(base_ + mapped_, piece, 0, h, 0) != CUDA_SUCCESS) {
                cuMemRelease(h);
                return false;
            }
            if (cuMemSetAccess(base_ + mapped_, piece, &access_, 1) != CUDA_SUCCESS) {
                cuMemUnmap(base_ + mapped_, piece);
                cuMemRelease(h);
                return false;
            }
            chunks_.push_back({h, piece, mapped_});
            mapped_ += piece;
        }
        return true;
    }

    // release gives everything back: each chunk's mapping and memory, then
    // the addresses. It says whether the driver accepted each step.
    bool release() {
        // TODO 4: tear down in an order the driver accepts.
        // Every mapping first (the last chunk first) with its handle, then
        // every range, the last first, each with the size it was reserved
        // with.
        while (!chunks_.empty()) {
            const Chunk c = chunks_.back();
            CU(cuMemUnmap(base_ + c.off, c.bytes));
            CU(cuMemRelease(c.handle));
            chunks_.pop_back();
        }
        while (!ranges_.empty()) {
            const Range r = ranges_.back();
            CU(cuMemAddressFree(r.base, r.bytes));
            ranges_.pop_back();
        }
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
        size_t off;     // where the chunk starts in the buffer
    };
    struct Range {
        CUdeviceptr base;
        size_t bytes;
    };
    // The ranges the buffer's addresses come from, side by side from base_.
    std::vector<Range> ranges_;

    // rangeEnd is the offset, from base_, where the range holding offset
    // off ends.
    size_t rangeEnd(size_t off) const {
        size_t end = 0;
        for (const Range& r : ranges_) {
            end += r.bytes;
            if (off < end) return end;
        }
        return end;
    }

    // move maps every chunk into one new range of total bytes, at its
    // offset, opens it, waits for the device, and takes the old mappings
    // and ranges down; on a failure the old ones are kept.
    bool move(size_t total) {
        CUdeviceptr fresh = 0;
        CU(cuMemAddressReserve(&fresh, total, granularity_, 0, 0));
        size_t done = 0;
        bool ok = true;
        for (; done < chunks_.size() && ok; done++) {
            const Chunk& c = chunks_[done];
            if (cuMemMap(fresh + c.off, c.bytes, 0, c.handle, 0) != CUDA_SUCCESS) {
                ok = false;
                break;
            }
            if (cuMemSetAccess(fresh + c.off, c.bytes, &access_, 1) != CUDA_SUCCESS) {
                cuMemUnmap(fresh + c.off, c.bytes);
                ok = false;
                break;
            }
        }
        if (!ok) {
            for (size_t i = 0; i < done; i++) cuMemUnmap(fresh + chunks_[i].off, chunks_[i].bytes);
            cuMemAddressFree(fresh, total);
            return false;
        }
        CU(cuCtxSynchronize());
        for (const Range& r : ranges_) CU(cuMemAddressFree(r.base, r.bytes));
        for (const Chunk& c : chunks_) CU(cuMemUnmap(base_ + c.off, c.bytes));
        ranges_.assign(1, Range{fresh, total});
        base_ = fresh;
        reserved_ = total;
        return true;
    }
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
