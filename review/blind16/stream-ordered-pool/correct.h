// kind: correct
// mistake: none. Design: the free blocks in one vector of (block, giving stream) in give-back order; one event per giving stream (not per block), made at that stream's first give-back and recorded again at each; own = the newest own give-back, then a fresh block, then a steal of the oldest give-back of another stream, queued behind that stream's event (its latest record, which comes after the stolen block's give-back)
// why it is wrong: -
// source: own
// Day 88 capstone: a stream-ordered pool of your own, whose blocks pass
// from stream to stream without the host ever waiting. The harness,
// bench.cu, runs it against the driver's own stream-ordered allocator
// (cudaMallocAsync).
// Design the pool's insides and write allocate(), deallocate() and the
// destructor; lessons check says when it is done.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(e_));                                            \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

// A pool of fixed-size blocks cut from one stream-ordered allocation.
// allocate(s) hands out a block that work queued on s after the call may
// use; deallocate(p, s) gives it back once the work queued on s before the
// call is done. Neither ever makes the host wait for the GPU.
class StreamOrderedPool {
public:
    StreamOrderedPool(size_t blockBytes, int blocks, cudaStream_t setup) : block_(blockBytes), setup_(setup) {
        CHECK(cudaMallocAsync(&chunk_, blocks * blockBytes, setup));
        CHECK(cudaStreamSynchronize(setup));   // the chunk is ready for every stream
        for (int i = blocks - 1; i >= 0; i--) fresh_.push_back(chunk_ + i * blockBytes);
    }

    // The counts main prints: blocks served from the allocating stream's
    // own free list, never used before, and taken from another stream's.
    int own = 0, fresh = 0, stolen = 0;

    // allocate returns a block for work on stream s, or nullptr when every
    // block is handed out. A block another stream freed may still be in
    // use by that stream's kernels: s must not touch it before they end,
    // and the host must not wait for them.
    void* allocate(cudaStream_t s) {
        // The newest block s gave back itself: s's own order already puts
        // its earlier uses first.
        for (size_t i = free_.size(); i-- > 0;) {
            if (free_[i].by == s) {
                char* p = free_[i].p;
                free_.erase(free_.begin() + (long)i);
                own++;
                return p;
            }
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        if (free_.empty()) return nullptr;
        // The oldest give-back of another stream: s waits for that
        // stream's event, last recorded at or after this give-back.
        Freed f = free_.front();
        free_.erase(free_.begin());
        CHECK(cudaStreamWaitEvent(s, events_.at(f.by), 0));
        stolen++;
        return f.p;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        auto it = events_.find(s);
        if (it == events_.end()) {
            cudaEvent_t e = nullptr;
            CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
            it = events_.emplace(s, e).first;
        }
        CHECK(cudaEventRecord(it->second, s));
        free_.push_back(Freed{static_cast<char*>(p), s});
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        for (auto& se : events_) CHECK(cudaEventDestroy(se.second));
        events_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    struct Freed {
        char* p;            // the block
        cudaStream_t by;    // the stream that gave it back
    };
    std::vector<Freed> free_;                      // give-backs, oldest first
    std::map<cudaStream_t, cudaEvent_t> events_;   // one event a giving stream
};
