// kind: race (a wait on the wrong stream: the legacy NULL stream)
// mistake: a steal makes the NULL stream wait for the block's event (cudaStreamWaitEvent(0, ev, 0)) instead of s, from the old reference's sentence that a wait on the NULL stream makes "any future work submitted in any stream" wait.
// why it is wrong: the harness's streams are non-blocking (bench.cu: cudaStreamNonBlocking): they never wait for the legacy stream, so the stealing stream's fill may overwrite the block while the freeing stream's check still reads it. The lesson's Day 87 section says it of cudaMemset: non-blocking streams "do not wait for that stream".
// source: the CUDA driver API reference of cuStreamWaitEvent in its CUDA 4 era wording ("If hStream is 0 (the NULL stream) any future work submitted in any stream will wait for hEvent"), still served at cs.cmu.edu/afs/cs/academic/class/15668-s11/www/cuda-doc/html/group__CUDA__STREAM_g6a898b652dfc6aa1d5c8d97062618b2f.html; it does not hold for non-blocking streams
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
        char* p = freed_.front();
        freed_.pop_front();
        CHECK(cudaStreamWaitEvent(0, info_.at(p).ev, 0));   // the NULL stream: every stream waits
        stolen++;
        return p;
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
