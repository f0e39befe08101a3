// kind: wrong (race: a steal waits for the work queued before the block was handed out, not for the reads before its give-back; the record always when a block changes streams, the data with SPIN_US)
// mistake: the event of a block is recorded in allocate, on the stream that takes it ("the block is ready from here on"), and deallocate only files the block and its event under the giving stream
// why it is wrong: the event marks the point where the block was taken, before the fill and the check that use it; a stream that steals the block waits for that point only, and its fill may overwrite the block while the giver's check still reads it
// source: rapidsai/rmm#2490, rapidsai/rapidsmpf#227
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
        char* p = nullptr;
        for (size_t i = back_.size(); i-- > 0 && p == nullptr;) {
            if (back_[i].by == s) p = static_cast<char*>(take(i, s, false));
        }
        if (p == nullptr && !fresh_.empty()) {
            p = fresh_.back();
            fresh_.pop_back();
            fresh++;
        }
        // The oldest give-back of another stream: the most likely to be
        // done, and s waits for it on the GPU, not the host.
        if (p == nullptr && !back_.empty()) p = static_cast<char*>(take(0, s, true));
        if (p == nullptr) return nullptr;
        // The block is ready for others once s has it.
        cudaEvent_t e = spare_.back();
        spare_.pop_back();
        CHECK(cudaEventRecord(e, s));
        held_[p] = e;
        return p;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        back_.push_back(Back{static_cast<char*>(p), s, held_.at(static_cast<char*>(p))});
        held_.erase(static_cast<char*>(p));
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        for (auto& b : back_) spare_.push_back(b.ev);
        for (auto& h : held_) spare_.push_back(h.second);
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
    std::map<char*, cudaEvent_t> held_;  // blocks handed out, with their event

    // take hands out back_[i] to s; a steal makes s wait for the giver's
    // work first. The event goes back to the spare stack: a later record
    // does not change the wait already queued.
    void* take(size_t i, cudaStream_t s, bool steal) {
        Back b = back_[i];
        back_.erase(back_.begin() + static_cast<long>(i));
        if (steal) {
            CHECK(cudaStreamWaitEvent(s, b.ev, 0));
            stolen++;
        } else {
            own++;
        }
        spare_.push_back(b.ev);
        return b.p;
    }
};
