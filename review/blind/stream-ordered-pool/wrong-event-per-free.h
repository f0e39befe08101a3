// kind: events made on the hot path and leaked
// mistake: deallocate creates a new event for every free and destroys the block's previous one only when the block is stolen. Own-list reuses and the blocks left on the lists at the end keep events nobody destroys, and each free costs an event creation.
// why it is wrong: Day 87, exercise: the destructor destroys 'what the pool made'; Day 70: one event can be recorded again for every use, since a wait takes its mark when queued.
// source: own
// Day 88 capstone: a stream-ordered pool of your own, with a free list per
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
        std::vector<int>& mine = free_[s];
        if (!mine.empty()) {
            const int b = mine.back();
            mine.pop_back();
            own++;
            return chunk_ + (size_t)b * block_;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        // Steal the block freed longest ago on another stream: the likeliest
        // to be done already.
        std::vector<int>* from = nullptr;
        size_t at = 0;
        for (auto& f : free_) {
            if (f.first == s) continue;
            for (size_t k = 0; k < f.second.size(); k++) {
                const int b = f.second[k];
                if (from == nullptr || seq_[b] < seq_[(*from)[at]]) {
                    from = &f.second;
                    at = k;
                }
            }
        }
        if (from == nullptr) return nullptr;   // no block free anywhere
        const int b = (*from)[at];
        from->erase(from->begin() + at);
        const cudaError_t q = cudaEventQuery(events_[b]);
        if (q == cudaErrorNotReady) {
            CHECK(cudaStreamWaitEvent(s, events_[b], 0));   // on the GPU: the host goes on
        } else {
            CHECK(q);   // complete: the work that freed it is over, no wait to queue
        }
        CHECK(cudaEventDestroy(events_[b])); // the wait is queued: the event is done with
        events_[b] = nullptr;
        stolen++;
        return chunk_ + (size_t)b * block_;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        const int b = (int)((static_cast<char*>(p) - chunk_) / block_);
        if (events_.empty()) events_.assign(count(), nullptr);
        CHECK(cudaEventCreateWithFlags(&events_[b], cudaEventDisableTiming)); // fresh for this free
        CHECK(cudaEventRecord(events_[b], s));
        if (seq_.empty()) seq_.assign(count(), 0);
        seq_[b] = ++clock_;
        free_[s].push_back(b);
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    std::map<cudaStream_t, std::vector<int>> free_; // per stream: blocks it freed, by index
    std::vector<cudaEvent_t> events_;  // per block: recorded on the stream that freed it last
    std::vector<unsigned long long> seq_; // per block: when it was freed last
    unsigned long long clock_ = 0;
    // count is how many blocks the chunk holds.
    int count() const { return (int)fresh_.size() + fresh; } // every block leaves fresh_ once
};
