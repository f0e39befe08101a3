// kind: correct
// mistake: none. Design: the blocks given back kept in ONE std::map keyed by the block's address (lowest address first), each entry the giving stream and an event borrowed from a stock of spare events; the event is recorded on the giving stream at the give-back; an own take (the lowest-address block s gave back) needs no wait and puts the event back in stock at once; a steal (the lowest-address block of any other stream, after no own block and no fresh one) queues s's wait on the entry's event and only then puts it back in stock (the wait binds to the record at the call, so a later record of the same event cannot move it); events are made only when the stock is empty; the destructor destroys the events of the entries still kept and every spare, then frees the chunk
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
        // A block s gave back itself: its earlier work is s's own earlier work.
        for (auto it = kept_.begin(); it != kept_.end(); ++it) {
            if (it->second.giver != s) continue;
            char* p = it->first;
            stock_.push_back(it->second.ev);
            kept_.erase(it);
            own++;
            return p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        // Another stream's block: s waits, in its own order, for that
        // stream's work up to the give-back. The host never waits.
        if (kept_.empty()) return nullptr;
        auto it = kept_.begin();
        char* p = it->first;
        CHECK(cudaStreamWaitEvent(s, it->second.ev, 0));
        stock_.push_back(it->second.ev);
        kept_.erase(it);
        stolen++;
        return p;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        cudaEvent_t ev;
        if (stock_.empty()) {
            CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
        } else {
            ev = stock_.back();
            stock_.pop_back();
        }
        CHECK(cudaEventRecord(ev, s));
        kept_[static_cast<char*>(p)] = Given{s, ev};
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        for (auto& kv : kept_) CHECK(cudaEventDestroy(kv.second.ev));
        kept_.clear();
        for (cudaEvent_t ev : stock_) CHECK(cudaEventDestroy(ev));
        stock_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    struct Given {
        cudaStream_t giver;      // the stream in whose order the block is free
        cudaEvent_t ev;          // recorded on giver at the give-back
    };
    std::map<char*, Given> kept_;      // blocks given back, by address
    std::vector<cudaEvent_t> stock_;   // events not tied to any block now
};
