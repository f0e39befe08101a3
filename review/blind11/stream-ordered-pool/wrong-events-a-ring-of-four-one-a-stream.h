// kind: wrong (race in the record whenever more than four give-backs wait at once: a steal waits on a record another give-back made later, of another stream; the data show it now and then with SPIN_US)
// mistake: the pool makes four events, "one for each of bench's four streams", and hands them out in turn at every give-back (a ring: give-back n records event n % 4), so an event is recorded again while an older give-back still names it
// why it is wrong: with 8 blocks up to 8 give-backs wait at once; the fifth give-back records again the event of the first, on another stream: a steal of the first block then waits for the fifth give-back's stream, not for the work of the stream that gave the first block back, which may still read it
// source: ai-dynamo/dynamo#7946, NVIDIA/cub#156
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
        (void)blocks;
        spare_.resize(4);   // one event for each of the four streams
        for (int i = 0; i < 4; i++) ring_[i] = nullptr;
        for (auto& e : spare_) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        for (int i = 0; i < 4; i++) ring_[i] = spare_[i];
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
        if (!back_.empty()) return take(0, s, true);
        return nullptr;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        cudaEvent_t e = ring_[next_++ % 4];   // the streams take turns
        CHECK(cudaEventRecord(e, s));
        back_.push_back(Back{static_cast<char*>(p), s, e});
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        back_.clear();
        for (int i = 0; i < 4; i++) CHECK(cudaEventDestroy(ring_[i]));
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
    std::vector<cudaEvent_t> spare_; // the events made
    cudaEvent_t ring_[4];
    unsigned next_ = 0;

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
        return b.p;
    }
};
