// kind: wrong (the program's own output or the record: allocate returns nullptr while other streams hold free blocks, as soon as a stream has used its share; stolen stays 0)
// mistake: allocate looks only at the stream's own give-backs and at the never-used blocks, and returns nullptr otherwise ("another stream's blocks are still in use")
// why it is wrong: a block another stream gave back is free once that stream's earlier work ends; the pool must hand it out behind a wait, and may say nullptr only when no block is free anywhere
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
        // a block s gave back itself: its own order covers it
        auto mine = lists_.find(s);
        if (mine != lists_.end() && !mine->second.empty()) {
            char* p = mine->second.back();
            mine->second.pop_back();
            own++;
            return p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        return nullptr;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        if (p == nullptr) return;
        char* q = static_cast<char*>(p);
        auto it = events_.find(q);
        if (it == events_.end()) {
            cudaEvent_t e;
            CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
            it = events_.emplace(q, e).first;
        }
        // the block is free once the work on s so far is done
        CHECK(cudaEventRecord(it->second, s));
        lists_[s].push_back(q);
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        for (auto& kv : events_) cudaEventDestroy(kv.second);
        events_.clear();
        lists_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    // blocks given back, filed under the stream that gave them back, in
    // the order they came
    std::map<cudaStream_t, std::vector<char*>> lists_;
    // one event a block, made the first time the block is given back and
    // recorded again at every give-back
    std::map<char*, cudaEvent_t> events_;
};
