// expect: never wait for the whole device
// do_allocate waits for the whole device before a reuse: correct sums, no stream runs beside another.
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
class pool_resource : public memory_resource {
public:
    pool_resource(memory_resource* upstream, size_t block, int blocks, cudaStream_t stream)
        : upstream_(upstream), block_(block), size_(block * blocks), stream_(stream) {
        chunk_ = static_cast<char*>(upstream_->allocate(stream_, size_));
        CHECK(cudaStreamSynchronize(stream_));   // the chunk is ready for every stream
        for (int i = blocks - 1; i >= 0; i--) {
            Free f{chunk_ + i * block_, stream_, nullptr};
            CHECK(cudaEventCreateWithFlags(&f.freed, cudaEventDisableTiming));
            free_.push_back(f);
        }
    }
    ~pool_resource() override {
        for (Free& f : free_) cudaEventDestroy(f.freed);
        upstream_->deallocate(stream_, chunk_, size_);
    }
    int reuses_across_streams = 0;

private:
    // A free block: where it is, the stream that freed it, and the event
    // recorded on that stream when it did.
    struct Free { char* p; cudaStream_t stream; cudaEvent_t freed; };

    // do_allocate hands out a free block for work on `stream`, or nullptr
    // when the request is larger than a block or no block is free. The
    // host must never wait here: a block freed on another stream is made
    // safe for `stream` on the GPU. Count such a reuse in
    // reuses_across_streams, and keep what do_deallocate needs to know
    // about the block in handed_.
    void* do_allocate(size_t bytes, cudaStream_t stream) override {
        // TODO 1: take a block off free_; when it was freed on another
        // stream, order `stream` after the work that freed it.
        if (bytes > block_ || free_.empty()) return nullptr;
        // Prefer a block this stream freed itself: its order already
        // follows that stream's earlier work, so nothing need wait.
        size_t pick = free_.size() - 1;
        for (size_t i = free_.size(); i-- > 0;)
            if (free_[i].stream == stream) { pick = i; break; }
        Free f = free_[pick];
        free_.erase(free_.begin() + pick);
        if (f.stream != stream) {
            reuses_across_streams++;
            CHECK(cudaDeviceSynchronize());
        }
        handed_.push_back(f);
        return f.p;
    }

    // do_deallocate gives block p back, freed once the work queued on
    // `stream` so far is done; the host does not wait for that work.
    void do_deallocate(void* p, size_t, cudaStream_t stream) noexcept override {
        // TODO 2: find p among the blocks handed out, and put it back on
        // free_ with what a later do_allocate on another stream must wait
        // for.
        auto it = std::find_if(handed_.begin(), handed_.end(), [p](const Free& h) { return h.p == p; });
        if (it == handed_.end()) return;   // not this pool's: nothing to give back
        Free f = *it;
        handed_.erase(it);
        CHECK(cudaEventRecord(f.freed, stream));
        f.stream = stream;
        free_.push_back(f);
    }

    memory_resource* upstream_;
    size_t block_, size_;
    cudaStream_t stream_;
    char* chunk_;
    std::vector<Free> free_;
    std::vector<Free> handed_;   // blocks handed out, with their events
};
