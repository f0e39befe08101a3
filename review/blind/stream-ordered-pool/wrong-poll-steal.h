// kind: host wait disguised
// mistake: When it steals, allocate loops on cudaEventQuery of the block's event until it is complete, 'so the block is really free', instead of queueing a wait on the GPU. No synchronisation API appears in the pool, yet the host stops at every steal and the stealing stream's next launches are queued late.
// why it is wrong: Day 87, 'Capstone': 'the host never waits'; the check counts every host wait.
// source: https://forums.developer.nvidia.com/t/cpu-spins-while-waiting-for-gpu-to-finish-computation/241672 (host spinning on the GPU's progress)
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
        while (cudaEventQuery(events_[b]) == cudaErrorNotReady) {
        } // the other stream is done with it now
        stolen++;
        return chunk_ + (size_t)b * block_;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        const int b = (int)((static_cast<char*>(p) - chunk_) / block_);
        if (events_.empty()) events_.assign(count(), nullptr);
        if (events_[b] == nullptr) CHECK(cudaEventCreateWithFlags(&events_[b], cudaEventDisableTiming));
        CHECK(cudaEventRecord(events_[b], s));
        if (seq_.empty()) seq_.assign(count(), 0);
        seq_[b] = ++clock_;
        free_[s].push_back(b);
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        for (cudaEvent_t e : events_)
            if (e != nullptr) CHECK(cudaEventDestroy(e));
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
