// kind: correct
// mistake: none: one event a block, made at its first give-back and recorded again at every later one (a std::map from block to event); one list of every block given back, oldest first, with the stream that gave it; allocate takes s's own newest give-back (no wait), then a fresh block, then the oldest give-back of any stream behind a cudaStreamWaitEvent on that block's event; the destructor destroys every event in the map
// why it is wrong: it is not
// source: none (written from the lesson and the student file)
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
        // Own: the newest block s gave back itself, in s's order already.
        for (size_t i = given_.size(); i-- > 0;) {
            if (given_[i].by == s) {
                char* p = given_[i].p;
                given_.erase(given_.begin() + static_cast<long>(i));
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
        if (given_.empty()) return nullptr;
        // Another stream's: the one given back longest ago, behind the
        // giver's work up to its give-back.
        Given g = given_.front();
        given_.erase(given_.begin());
        CHECK(cudaStreamWaitEvent(s, eventOf(g.p), 0));
        stolen++;
        return g.p;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        char* b = static_cast<char*>(p);
        CHECK(cudaEventRecord(eventOf(b), s));
        given_.push_back(Given{b, s});
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        for (auto& kv : events_) CHECK(cudaEventDestroy(kv.second));
        events_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    // One event a block, made the first time the block is given back and
    // recorded again at every give-back: a wait queued on it stands for
    // the record made before the wait, later records do not move it.
    struct Given {
        char* p;
        cudaStream_t by;   // the stream whose work the block is behind
    };
    std::vector<Given> given_;   // every block given back, oldest first
    std::map<char*, cudaEvent_t> events_;

    cudaEvent_t eventOf(char* p) {
        auto it = events_.find(p);
        if (it != events_.end()) return it->second;
        cudaEvent_t e;
        CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        events_.emplace(p, e);
        return e;
    }
};
