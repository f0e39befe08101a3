// kind: wrong (other arguments only (--keep): a leak of events in the record; without --keep every block is free at the end and nothing leaks; the output is right)
// mistake: the destructor destroys the events of the blocks on the free map only ("the pool's own blocks are the free ones"), so the events of blocks still handed out when the pool ends are never destroyed
// why it is wrong: with --keep the last round's blocks are never given back, as the harness says a pool may allow; their events were made at earlier give-backs and are now lost: the pool does not destroy everything it made
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
        // Own first: the lowest-addressed block s gave back itself; s's
        // order already puts it after that block's last use.
        for (auto it = free_.begin(); it != free_.end(); ++it) {
            if (it->second == s) {
                char* p = it->first;
                free_.erase(it);
                own++;
                return p;
            }
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        // Another stream's block: s waits (on the GPU) for that stream's
        // give-back, which the block's event marks.
        if (!free_.empty()) {
            auto it = free_.begin();
            char* p = it->first;
            CHECK(cudaStreamWaitEvent(s, events_[index(p)], 0));
            free_.erase(it);
            stolen++;
            return p;
        }
        return nullptr;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        char* b = static_cast<char*>(p);
        size_t i = index(b);
        if (events_.size() <= i) events_.resize(i + 1, nullptr);
        if (events_[i] == nullptr) CHECK(cudaEventCreateWithFlags(&events_[i], cudaEventDisableTiming));
        CHECK(cudaEventRecord(events_[i], s));
        free_[b] = s;
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        for (auto& f : free_) {
            cudaEvent_t e = events_[index(f.first)];
            if (e != nullptr) CHECK(cudaEventDestroy(e));
        }
        events_.clear();
        free_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    // The blocks given back, by address, with the stream that gave each
    // back; one event a block (by its number), recorded at its give-back.
    std::map<char*, cudaStream_t> free_;
    std::vector<cudaEvent_t> events_;
    size_t index(const char* p) const { return static_cast<size_t>(p - chunk_) / block_; }
};
