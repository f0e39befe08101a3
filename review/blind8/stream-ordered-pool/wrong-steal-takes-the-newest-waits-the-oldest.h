// kind: wrong (race: a steal's wait covers an older give-back than the block it takes; the data show it only with bench's SPIN and a donor holding two or more blocks)
// mistake: a steal takes the donor's newest block (the most recently used, likely still in cache) but queues the wait on the event of the donor's oldest give-back, reasoning that one stream's events complete in order, and destroys the taken block's own event.
// why it is wrong: the oldest event completes first, not last: it says nothing of the work queued on the donor after it, so the taker may write the newest block while the donor's kernels still read it; the steals of the default run take from donors holding two to four blocks, so most are unordered, and the record shows a reuse with no order back to the last use.
// source: NVIDIA/cub#156 (the caching allocator's ready event did not stand for the block's own last use: another stream claimed a block still in use), pytorch/pytorch#109863 (an event recorded for each stream a block was used on, not one for the stream's earlier work)
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
        // s's own give-backs first, newest first: s's order already puts
        // their frees before anything s queues now, so their events are
        // not needed any more.
        auto mine = given_.find(s);
        if (mine != given_.end() && !mine->second.empty()) {
            Given g = mine->second.back();
            mine->second.pop_back();
            CHECK(cudaEventDestroy(g.done));
            own++;
            return g.p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        // Else the oldest block of the stream that holds the most given-back
        // blocks (the one least likely to need them back soon), behind a wait
        // on the GPU for the event recorded when it was given back.
        auto donor = given_.end();
        for (auto it = given_.begin(); it != given_.end(); ++it) {
            if (it->first == s || it->second.empty()) continue;
            if (donor == given_.end() || it->second.size() > donor->second.size()) donor = it;
        }
        if (donor == given_.end()) return nullptr;
        Given g = donor->second.back();
        donor->second.pop_back();
        // The donor's events complete in the order they were recorded: the
        // oldest one still listed stands for the donor's work.
        CHECK(cudaStreamWaitEvent(s, donor->second.empty() ? g.done : donor->second.front().done, 0));
        CHECK(cudaEventDestroy(g.done));
        stolen++;
        return g.p;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        // An event of its own for every give-back: made here, recorded on
        // the giving stream, destroyed when the block is taken again.
        cudaEvent_t done;
        CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
        CHECK(cudaEventRecord(done, s));
        given_[s].push_back(Given{static_cast<char*>(p), done});
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        for (auto& kv : given_)
            for (auto& g : kv.second) CHECK(cudaEventDestroy(g.done));
        given_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    // A block given back, with the event recorded on its stream when it was.
    struct Given {
        char* p;
        cudaEvent_t done;
    };
    // The blocks given back, by the stream that gave them back, oldest first.
    std::map<cudaStream_t, std::vector<Given>> given_;
};
