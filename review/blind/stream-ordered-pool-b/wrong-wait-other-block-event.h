// kind: a steal that waits for another block's event (output identical, mostly)
// mistake: The steal finds the stream whose list holds the block freed longest ago, but then takes that list's last block (the most recently freed, 'the one still in cache') while it waits for the event of the list's first block, the one it meant to take: two ends of one list mixed up.
// why it is wrong: When that list holds more than one block, the block handed out was freed after the one whose event is waited for: the stealing stream is ordered after the earlier free only, and may write the block while the kernels queued before its own free (the check) still read it. Frees on one stream come in order and the blocks' kernels are short, so the counted errors are 0 on most runs; a race tracker that follows each block's events sees it.
// source: own (the two ends of one list mixed up)
// Day 87 capstone: a stream-ordered pool of your own, with a free list per
// stream and blocks stolen between streams through events. The harness,
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
        std::vector<Freed>& mine = free_[s];
        if (!mine.empty()) {   // s's order already follows its own free
            char* p = mine.back().p;
            mine.pop_back();
            own++;
            return p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        // Steal the block freed longest ago, whichever stream freed it: its
        // free is the most likely to be done already, so the wait costs least.
        std::vector<Freed>* from = nullptr;
        size_t at = 0;
        for (auto& kv : free_) {
            for (size_t i = 0; i < kv.second.size(); i++) {
                if (from == nullptr || kv.second[i].seq < (*from)[at].seq) {
                    from = &kv.second;
                    at = i;
                }
            }
        }
        if (from == nullptr) return nullptr;   // no block free anywhere
        (void)at;
        char* p = from->back().p;   // the most recently freed: still in cache
        CHECK(cudaStreamWaitEvent(s, events_.at(from->front().p), 0));   // on the GPU: the host goes on
        from->pop_back();
        stolen++;
        return p;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        char* b = static_cast<char*>(p);
        cudaEvent_t& e = events_[b];   // the block's own event, made at its first free
        if (e == nullptr) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        CHECK(cudaEventRecord(e, s));   // done when the work queued on s so far is
        free_[s].push_back(Freed{b, ++seq_});
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        for (auto& kv : events_) CHECK(cudaEventDestroy(kv.second));
        events_.clear();
        free_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    struct Freed {
        char* p;
        unsigned long long seq;   // when it was freed, across all streams
    };
    std::map<cudaStream_t, std::vector<Freed>> free_;   // per stream, last freed at the back
    std::map<char*, cudaEvent_t> events_;   // per block: recorded at its last free
    unsigned long long seq_ = 0;
};
