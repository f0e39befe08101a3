// kind: wrong (the record only: the host asks events again and again whether the work is done (cudaEventQuery at every steal, over every give-back); the data are right)
// mistake: before a steal the pool walks the give-backs, oldest first, asking each one's event with cudaEventQuery, and takes the first that says done with no wait; only when none is done does it take the oldest behind a cudaStreamWaitEvent
// why it is wrong: the lesson forbids a pool that asks whether the work is done again and again: every steal queries up to every waiting event on the host (ten or more queries a round), the polling that the check counts; the wait on the GPU alone was enough
// source: tensorflow/tensorflow#6224, cms-patatrack/pixeltrack-standalone#218
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
        // One event a block: no more give-backs than blocks can be waiting.
        spare_.resize(blocks);
        for (auto& e : spare_) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    }

    // The counts main prints: blocks served from the allocating stream's
    // own free list, never used before, and taken from another stream's.
    int own = 0, fresh = 0, stolen = 0;

    // allocate returns a block for work on stream s, or nullptr when every
    // block is handed out. A block another stream freed may still be in
    // use by that stream's kernels: s must not touch it before they end,
    // and the host must not wait for them.
    void* allocate(cudaStream_t s) {
        // The newest give-back of s itself: s's order already puts the
        // free before anything s queues now, so no wait.
        for (size_t i = back_.size(); i-- > 0;) {
            if (back_[i].by == s) return take(i, s, false);
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        // The oldest give-back of another stream: the most likely to be
        // done, and s waits for it on the GPU, not the host.
        // A give-back whose work is already done needs no wait at all.
        for (size_t i = 0; i < back_.size(); i++) {
            cudaError_t q = cudaEventQuery(back_[i].ev);
            if (q == cudaSuccess) return take(i, s, false, true);
            if (q != cudaErrorNotReady) CHECK(q);
        }
        if (!back_.empty()) return take(0, s, true);
        return nullptr;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        cudaEvent_t e = spare_.back();   // one event a block: never empty here
        spare_.pop_back();
        CHECK(cudaEventRecord(e, s));
        back_.push_back(Back{static_cast<char*>(p), s, e});
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        for (auto& b : back_) spare_.push_back(b.ev);
        back_.clear();
        for (cudaEvent_t e : spare_) CHECK(cudaEventDestroy(e));
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    struct Back {
        char* p;             // the block
        cudaStream_t by;     // the stream that gave it back
        cudaEvent_t ev;      // recorded on by at the give-back
    };
    std::vector<Back> back_;         // give-backs, oldest first
    std::vector<cudaEvent_t> spare_; // events not on back_

    // take hands out back_[i] to s; a steal makes s wait for the giver's
    // work first. The event goes back to the spare stack: a later record
    // does not change the wait already queued.
    void* take(size_t i, cudaStream_t s, bool steal, bool done = false) {
        Back b = back_[i];
        back_.erase(back_.begin() + static_cast<long>(i));
        if (steal) {
            CHECK(cudaStreamWaitEvent(s, b.ev, 0));
            stolen++;
        } else if (done) {
            stolen++;
        } else {
            own++;
        }
        spare_.push_back(b.ev);
        return b.p;
    }
};
