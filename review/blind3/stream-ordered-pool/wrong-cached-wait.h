// kind: race (an optimisation that skips waits it still needs)
// mistake: the pool remembers that s has waited for stream t once and skips the wait on every later steal from t, though t has freed more blocks (and recorded its event again) since.
// why it is wrong: the earlier wait only orders s after t's work up to that record; a block t freed later may still be used by t's newer kernels (Runtime API, cudaStreamWaitEvent: the wait is for the most recent record at the time of the call). With the busy stream moving every round, later steals from the same stream race; the data often come out right.
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
        std::vector<char*>& mine = free_[s];
        if (!mine.empty()) {   // s's own free: in s's order already
            char* p = mine.back();
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
        for (auto& list : free_) {
            if (list.first == s || list.second.empty()) continue;
            char* p = list.second.back();
            list.second.pop_back();
            // s waits for t once; after that s is behind t already.
            if (!waited_[s][list.first]) {
                CHECK(cudaStreamWaitEvent(s, events_.at(list.first), 0));
                waited_[s][list.first] = true;
            }
            stolen++;
            return p;
        }
        return nullptr;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        auto e = events_.find(s);
        if (e == events_.end()) {
            cudaEvent_t ev;
            CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
            e = events_.emplace(s, ev).first;
        }
        CHECK(cudaEventRecord(e->second, s));   // after the work queued on s so far
        free_[s].push_back(static_cast<char*>(p));
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        // TODO 3: destroy what the pool made, then give the chunk back.
        for (auto& e : events_) CHECK(cudaEventDestroy(e.second));
        events_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.
    std::map<cudaStream_t, std::vector<char*>> free_;   // blocks by the stream that freed them
    std::map<cudaStream_t, cudaEvent_t> events_;        // each stream's event, recorded at its frees
    std::map<cudaStream_t, std::map<cudaStream_t, bool>> waited_;   // s has waited for t
};
