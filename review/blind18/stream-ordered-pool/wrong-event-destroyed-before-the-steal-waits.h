// kind: wrong (the program's own output: the first steal stops the program (cudaStreamWaitEvent on an event already destroyed: an invalid resource handle, or worse); in the default run steals come early, with 8 blocks and 6 takes a round)
// mistake: the steal destroys the entry's event first and queues the wait on it after
// why it is wrong: the handle is gone once cudaEventDestroy returns: the driver only defers the release of an event already waited on, so the event must be destroyed after the wait is queued, not before
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
        // TODO 1: return a block s may use once it gets there in its own
        // order: nullptr only when no block is free anywhere, no wait on
        // the host, and own, fresh or stolen counted by where it came
        // from (a block s freed itself, one never used, another's).
        // A block s gave back itself: s's own order already puts its use
        // after the give-back, so no wait (the newest such entry first).
        for (size_t k = free_.size(); k-- > 0;) {
            if (free_[k].giver != s) continue;
            Entry e = free_[k];
            free_.erase(free_.begin() + k);
            CHECK(cudaEventDestroy(e.ev));
            own++;
            return e.p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        // Another stream's block, the oldest give-back: s waits, on the GPU,
        // for what its giver had queued before giving it back.
        if (!free_.empty()) {
            Entry e = free_.front();
            free_.erase(free_.begin());
            CHECK(cudaEventDestroy(e.ev));   // released once the wait below is met
            CHECK(cudaStreamWaitEvent(s, e.ev, 0));
            stolen++;
            return e.p;
        }
        return nullptr;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        // TODO 2: keep p, with whatever another stream would need to
        // know before it may use p safely.
        cudaEvent_t ev;
        CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
        CHECK(cudaEventRecord(ev, s));
        free_.push_back(Entry{static_cast<char*>(p), s, ev});
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        // TODO 3: destroy what the pool made, then give the chunk back.
        for (Entry& e : free_) CHECK(cudaEventDestroy(e.ev));
        free_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.
    struct Entry {
        char* p;              // the block
        cudaStream_t giver;   // the stream that gave it back
        cudaEvent_t ev;       // recorded on giver at the give-back
    };
    std::vector<Entry> free_;   // blocks given back, oldest first
};
