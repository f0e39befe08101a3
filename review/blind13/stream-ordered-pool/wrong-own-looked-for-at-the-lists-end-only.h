// kind: wrong (the record and the counts: a stream steals another's block (a cross-stream wait) while its own give-backs sit further up the list; own too low, stolen too high, waits where no block needed to change hands; with few blocks, fresh ones used up early)
// mistake: allocate checks only the newest give-back (back_.back()) for s's own, then goes to fresh and steals, instead of searching the list for s's newest
// why it is wrong: the newest give-back is usually another stream's (four streams give back in turn); s's own earlier give-backs are then taken by others behind a wait, and s steals instead of reusing its own
// source: NVIDIA/cccl#7792 (waits in a caching allocator that stream order made needless)
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
        // s's own newest give-back: stream order already covers it.
        if (!back_.empty() && back_.back().stream == s) {
            char* p = back_.back().p;
            spare_.push_back(back_.back().done);
            back_.pop_back();
            own++;
            return p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        if (back_.empty()) return nullptr;
        // the oldest give-back of any other stream, behind its event
        GivenBack g = back_.front();
        back_.erase(back_.begin());
        CHECK(cudaStreamWaitEvent(s, g.done, 0));
        spare_.push_back(g.done);   // the wait holds its record: free to record again
        stolen++;
        return g.p;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        // TODO 2: keep p, with whatever another stream would need to
        // know before it may use p safely.
        cudaEvent_t e;
        if (spare_.empty()) {
            CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        } else {
            e = spare_.back();
            spare_.pop_back();
        }
        CHECK(cudaEventRecord(e, s));
        back_.push_back(GivenBack{static_cast<char*>(p), s, e});
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        // TODO 3: destroy what the pool made, then give the chunk back.
        for (auto& g : back_) CHECK(cudaEventDestroy(g.done));
        for (auto e : spare_) CHECK(cudaEventDestroy(e));
        back_.clear();
        spare_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.
    struct GivenBack {
        char* p;              // the block
        cudaStream_t stream;  // the stream that gave it back
        cudaEvent_t done;     // recorded on that stream at the give-back
    };
    std::vector<GivenBack> back_;     // every give-back, oldest first, all streams in one list
    std::vector<cudaEvent_t> spare_;  // events no give-back holds, to record again
};
