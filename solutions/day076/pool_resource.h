// A pool resource over any upstream resource: the file to complete.
#pragma once
#include <vector>
#include "memory_resource.h"

// A pool over an upstream resource: one chunk taken up front, cut into
// blocks of a fixed size. A freed block remembers the stream it was freed
// on and an event recorded there, so that another stream can reuse it
// only after that stream's work on it is done.
class pool_resource : public memory_resource {
public:
    pool_resource(memory_resource* upstream, size_t block, int blocks, cudaStream_t stream)
        : upstream_(upstream), block_(block), size_(block * blocks), stream_(stream) {
        chunk_ = static_cast<char*>(upstream_->allocate(size_, stream_));
        CHECK(cudaStreamSynchronize(stream_));   // the chunk is ready for every stream
        for (int i = blocks - 1; i >= 0; i--) {
            Free f{chunk_ + i * block_, stream_, nullptr};
            CHECK(cudaEventCreateWithFlags(&f.freed, cudaEventDisableTiming));
            free_.push_back(f);
        }
    }
    ~pool_resource() override {
        for (Free& f : free_) cudaEventDestroy(f.freed);
        upstream_->deallocate(chunk_, size_, stream_);
    }
    int reuses_across_streams = 0;
private:
    struct Free { char* p; cudaStream_t stream; cudaEvent_t freed; };

    void* do_allocate(size_t bytes, cudaStream_t stream) override {
        if (bytes > block_ || free_.empty()) return nullptr;
        Free f = free_.back();
        free_.pop_back();
        if (f.stream != stream) {
            reuses_across_streams++;
            // TODO 2: the block was freed on another stream, whose work may
            // still be using it: make `stream` wait for the event recorded
            // when it was freed.
            // BEGIN SOLUTION
            CHECK(cudaStreamWaitEvent(stream, f.freed, 0));
            // STUB
            // END SOLUTION
        }
        events_.push_back(f.freed);
        blocks_.push_back(f.p);
        return f.p;
    }
    void do_deallocate(void* p, size_t, cudaStream_t stream) override {
        cudaEvent_t e = nullptr;
        for (size_t i = 0; i < blocks_.size(); i++)
            if (blocks_[i] == p) { e = events_[i]; blocks_.erase(blocks_.begin() + i); events_.erase(events_.begin() + i); break; }
        // TODO 1: the block is free once the work queued on `stream` so far
        // is done: record its event on `stream`.
        // BEGIN SOLUTION
        CHECK(cudaEventRecord(e, stream));
        // STUB
        // END SOLUTION
        free_.push_back(Free{static_cast<char*>(p), stream, e});
    }

    memory_resource* upstream_;
    size_t block_, size_;
    cudaStream_t stream_;
    char* chunk_;
    std::vector<Free> free_;
    std::vector<char*> blocks_;        // blocks handed out, with their events
    std::vector<cudaEvent_t> events_;
};
