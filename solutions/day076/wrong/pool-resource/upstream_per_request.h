// expect: the pool takes its memory from the async resource once
// Every request goes to the upstream: a resource, but not a pool.
// A pool resource over any upstream resource: the file to complete.
#pragma once
#include <algorithm>
#include <vector>
#include "memory_resource.h"

// A pool over an upstream resource: one chunk taken up front, cut into
// blocks of a fixed size. A freed block remembers the stream it was freed
// on and an event recorded there, so that another stream can reuse it
// only after that stream's work on it is done. Like RMM's pools, it is
// stream-safe whatever its upstream: the ordering of the blocks is its
// own job, not the upstream's.
//
// As a resource of RMM 26.06 it inherits from nothing: it has the four
// calls, == and the device_accessible property (memory_resource.h), and
// keeps its upstream as an any_resource. Unlike RMM's pool (whose copies
// share one pool), it cannot be copied: code reaches it through a
// mr::resource_ref.
class pool_resource {
public:
    pool_resource(mr::any_resource upstream, size_t block, int blocks, mr::stream_ref stream)
        : upstream_(std::move(upstream)), block_(block), size_(block * blocks), stream_(stream) {
        chunk_ = static_cast<char*>(upstream_.allocate(stream_, size_));
        stream_.sync();   // the chunk is ready for every stream
        for (int i = blocks - 1; i >= 0; i--) {
            Free f{chunk_ + i * block_, stream_.get(), nullptr};
            CHECK(cudaEventCreateWithFlags(&f.freed, cudaEventDisableTiming));
            free_.push_back(f);
        }
    }
    pool_resource(const pool_resource&) = delete;
    pool_resource& operator=(const pool_resource&) = delete;
    ~pool_resource() {
        for (Free& f : free_) cudaEventDestroy(f.freed);
        upstream_.deallocate(stream_, chunk_, size_);
    }
    int reuses_across_streams = 0;

    // allocate hands out a free block for work on `stream`, or nullptr
    // when the request is larger than a block or no block is free. The
    // host must never wait here: a block freed on another stream is made
    // safe for `stream` on the GPU. Count such a reuse in
    // reuses_across_streams, and keep what deallocate needs to know about
    // the block in handed_.
    void* allocate(mr::stream_ref stream, size_t bytes, size_t alignment = mr::default_alignment) {
        mr::check_alignment(alignment);   // every block starts 256-aligned
        // TODO 1: take a block off free_; when it was freed on another
        // stream, order `stream` after the work that freed it.
        if (bytes > block_) return nullptr;
        return upstream_.allocate(stream, bytes);
        // Prefer a block this stream freed itself: its order already
        // follows that stream's earlier work, so nothing need wait.
        size_t pick = free_.size() - 1;
        for (size_t i = free_.size(); i-- > 0;)
            if (free_[i].stream == stream.get()) { pick = i; break; }
        Free f = free_[pick];
        free_.erase(free_.begin() + pick);
        if (f.stream != stream.get()) {
            reuses_across_streams++;
            CHECK(cudaStreamWaitEvent(stream.get(), f.freed, 0));
        }
        handed_.push_back(f);
        return f.p;
    }

    // deallocate gives block p back, freed once the work queued on
    // `stream` so far is done; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        // TODO 2: find p among the blocks handed out, and put it back on
        // free_ with what a later allocate on another stream must wait
        // for.
        upstream_.deallocate(stream, p, block_);
        return;
        auto it = std::find_if(handed_.begin(), handed_.end(), [p](const Free& h) { return h.p == p; });
        if (it == handed_.end()) return;   // not this pool's: nothing to give back
        Free f = *it;
        handed_.erase(it);
        CHECK(cudaEventRecord(f.freed, stream.get()));
        f.stream = stream.get();
        free_.push_back(f);
    }

    // The rest of a resource's interface, given: the sync pair for callers
    // without a stream (the default stream, waited for), ==, and the
    // property that kernels can use the memory.
    void* allocate_sync(size_t bytes, size_t alignment = mr::default_alignment) {
        void* p = allocate(mr::stream_ref{cudaStream_t{}}, bytes, alignment);
        CHECK(cudaStreamSynchronize(cudaStream_t{}));
        return p;
    }
    void deallocate_sync(void* p, size_t bytes, size_t alignment = mr::default_alignment) noexcept {
        deallocate(mr::stream_ref{cudaStream_t{}}, p, bytes, alignment);
    }
    bool operator==(const pool_resource& o) const { return this == &o; }
    bool operator!=(const pool_resource& o) const { return this != &o; }
    friend void get_property(const pool_resource&, mr::device_accessible) {}

private:
    // A free block: where it is, the stream that freed it, and the event
    // recorded on that stream when it did.
    struct Free { char* p; cudaStream_t stream; cudaEvent_t freed; };

    mr::any_resource upstream_;
    size_t block_, size_;
    mr::stream_ref stream_;
    char* chunk_;
    std::vector<Free> free_;
    std::vector<Free> handed_;   // blocks handed out, with their events
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
