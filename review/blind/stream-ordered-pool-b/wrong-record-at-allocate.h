// kind: the block's event recorded when it is handed out (output identical, mostly)
// mistake: The event is recorded in allocate, on the stream that takes the block ('the event marks who has the block now'), and deallocate only puts the block on the list.
// why it is wrong: An event recorded at the allocation is complete before the kernels that use the block have run: a stream that steals the block waits for that point only, not for the fill and check queued after it, so it may write the block while the other stream's check still reads it. The own-list path needs no event and the waits are still queued, so the output is right when the kernels are short.
// source: https://forums.developer.nvidia.com/t/when-event-changes-its-state-from-notready-to-recording-cudaeventrecord-stream/6669 (what a recorded event stands for); the mistake is own
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
            mark(p, s);
            return p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            mark(p, s);
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
        char* p = (*from)[at].p;
        from->erase(from->begin() + at);
        CHECK(cudaStreamWaitEvent(s, events_.at(p), 0));   // on the GPU: the host goes on
        stolen++;
        mark(p, s);
        return p;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        free_[s].push_back(Freed{static_cast<char*>(p), ++seq_});
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
    // mark records the block's event on the stream that now has it.
    void mark(char* b, cudaStream_t s) {
        cudaEvent_t& e = events_[b];
        if (e == nullptr) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        CHECK(cudaEventRecord(e, s));
    }
};
