// kind: a refusal while a block is free (an event query used instead of a wait)
// mistake: to never wait at all, a steal looks for a block whose event cudaEventQuery says is complete, and returns nullptr when none is.
// why it is wrong: the lesson: "no refusal while a block is free ... it takes a block another stream freed, even one whose work is still running, and waits for that work on the GPU". The host runs ahead of the kernels, so the blocks other streams freed are usually still in use when a busy stream needs one, and the harness stops with "the pool had no block".
// source: own (the refusal a first stream-ordered pool makes when it treats a query as the whole answer; cf. NVIDIA-Merlin/HierarchicalKV#161, where a pool test failed because "the CUDA event appended to the stream is not yet triggered")
// Day 88 capstone: a stream-ordered pool of your own, whose blocks pass
// from stream to stream without the host ever waiting. The harness,
// bench.cu, runs it against the driver's own stream-ordered allocator
// (cudaMallocAsync).
// Design the pool's insides and write allocate(), deallocate() and the
// destructor; lessons check says when it is done.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <iterator>
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
        // s's own most recent free: nothing to wait for.
        for (auto it = freed_.rbegin(); it != freed_.rend(); ++it) {
            if (info_.at(*it).by != s) continue;
            char* p = *it;
            freed_.erase(std::next(it).base());
            own++;
            return p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        if (freed_.empty()) return nullptr;   // every block is handed out
        // Another stream's: the one freed longest ago, s after its free.
        for (auto it = freed_.begin(); it != freed_.end(); ++it) {
            cudaError_t q = cudaEventQuery(info_.at(*it).ev);
            if (q == cudaErrorNotReady) continue;
            CHECK(q);
            char* p = *it;
            freed_.erase(it);
            stolen++;
            return p;   // its work is over: no wait needed
        }
        return nullptr;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        char* b = static_cast<char*>(p);
        Info& i = info_[b];
        if (i.ev == nullptr) CHECK(cudaEventCreateWithFlags(&i.ev, cudaEventDisableTiming));
        i.by = s;
        CHECK(cudaEventRecord(i.ev, s));   // free once s's work so far is done
        freed_.push_back(b);
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        // The events first, then the chunk.
        for (auto& e : info_)
            if (e.second.ev != nullptr) CHECK(cudaEventDestroy(e.second.ev));
        info_.clear();
        freed_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    // Of each block ever given back: its event, recorded at each free,
    // and the stream that freed it last.
    struct Info {
        cudaEvent_t ev = nullptr;
        cudaStream_t by = nullptr;
    };
    std::map<char*, Info> info_;
    std::deque<char*> freed_;   // the free blocks, oldest free first
};
