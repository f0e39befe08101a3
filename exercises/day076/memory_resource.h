// The interface of a memory resource, mirroring the one of RAPIDS RMM
// (rmm::mr::device_memory_resource, RMM 25.x and 26.x) in plain CUDA C++,
// and the resource over the device's stream-ordered allocator. This is a
// mirror, not RMM: the course builds without it. Current RMM takes the
// stream first, allocate(stream, bytes, alignment), and has
// allocate_sync for callers without a stream; its older
// allocate(bytes, stream) is deprecated, and RMM is moving these
// resources onto CCCL's cuda::mr concepts (cuda::mr::resource and
// cuda::mr::async_resource), whose calls have the same shape.
#pragma once
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

// RMM's default alignment: every allocation is aligned to 256 bytes.
constexpr std::size_t kAllocationAlignment = 256;

// Every resource allocates and frees in stream order: the memory may be
// used by work queued on `stream` after allocate, and is free for others
// once the work queued on `stream` before deallocate is done.
class memory_resource {
public:
    virtual ~memory_resource() = default;
    void* allocate(cudaStream_t stream, std::size_t bytes, std::size_t alignment = kAllocationAlignment) {
        check(alignment);
        return do_allocate(bytes, stream);
    }
    void deallocate(cudaStream_t stream, void* p, std::size_t bytes, std::size_t alignment = kAllocationAlignment) noexcept {
        (void)alignment;
        do_deallocate(p, bytes, stream);
    }
    // The _sync pair is for callers without a stream: as in RMM, it uses
    // the default stream and waits for it, so the memory is ready when it
    // returns.
    void* allocate_sync(std::size_t bytes, std::size_t alignment = kAllocationAlignment) {
        check(alignment);
        void* p = do_allocate(bytes, cudaStream_t{});
        CHECK(cudaStreamSynchronize(cudaStream_t{}));
        return p;
    }
    void deallocate_sync(void* p, std::size_t bytes, std::size_t alignment = kAllocationAlignment) noexcept {
        (void)alignment;
        do_deallocate(p, bytes, cudaStream_t{});
    }

private:
    static void check(std::size_t alignment) {
        if (alignment == 0 || alignment > kAllocationAlignment || (alignment & (alignment - 1)) != 0) {
            fprintf(stderr, "alignment %zu: it must be a power of two, at most %zu\n", alignment, kAllocationAlignment);
            exit(1);
        }
    }
    virtual void* do_allocate(std::size_t bytes, cudaStream_t stream) = 0;
    virtual void do_deallocate(void* p, std::size_t bytes, cudaStream_t stream) noexcept = 0;
};

// The device's own stream-ordered allocator: RMM's cuda_async_memory_resource.
class async_resource : public memory_resource {
    void* do_allocate(std::size_t bytes, cudaStream_t stream) override {
        void* p = nullptr;
        CHECK(cudaMallocAsync(&p, bytes, stream));
        return p;
    }
    void do_deallocate(void* p, std::size_t, cudaStream_t stream) noexcept override { CHECK(cudaFreeAsync(p, stream)); }
};
