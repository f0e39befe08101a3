// The interface of a memory resource in the style of RMM, in plain CUDA
// C++, and the resource over the device's stream-ordered allocator.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

// Every resource allocates and frees in stream order: the memory may be
// used by work queued on `stream` after allocate, and is free for others
// once the work queued on `stream` before deallocate is done.
class memory_resource {
public:
    virtual ~memory_resource() = default;
    void* allocate(size_t bytes, cudaStream_t stream) { return do_allocate(bytes, stream); }
    void deallocate(void* p, size_t bytes, cudaStream_t stream) { do_deallocate(p, bytes, stream); }
private:
    virtual void* do_allocate(size_t bytes, cudaStream_t stream) = 0;
    virtual void do_deallocate(void* p, size_t bytes, cudaStream_t stream) = 0;
};

// The device's own stream-ordered allocator.
class async_resource : public memory_resource {
    void* do_allocate(size_t bytes, cudaStream_t stream) override {
        void* p = nullptr;
        CHECK(cudaMallocAsync(&p, bytes, stream));
        return p;
    }
    void do_deallocate(void* p, size_t, cudaStream_t stream) override { CHECK(cudaFreeAsync(p, stream)); }
};
