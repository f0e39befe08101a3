// kind: correct
// mistake: none: one event per stream (made at the stream's first give-back, destroyed in the destructor), recorded again at every deallocate on that stream; a std::map from stream to its list of blocks; own blocks first (newest), then fresh, then the oldest block of the first other stream in handle order, behind one cudaStreamWaitEvent on that stream's event.
// why it is wrong: none.
// source: none (written from the lesson and the student file): RMM's stream_ordered_memory_resource keeps one event per stream in the same way (lesson's pointer).
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
        auto mine = lists_.find(s);
        if (mine != lists_.end() && !mine->second.blocks.empty()) {
            char* p = mine->second.blocks.back();   // s's own order covers its free
            mine->second.blocks.pop_back();
            own++;
            return p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        for (auto& [donor, list] : lists_) {
            if (donor == s || list.blocks.empty()) continue;
            // The donor's event was recorded at its latest free, after the
            // work that used every block in its list: s waits for it on
            // the GPU.
            CHECK(cudaStreamWaitEvent(s, list.freed, 0));
            char* p = list.blocks.front();
            list.blocks.erase(list.blocks.begin());
            stolen++;
            return p;
        }
        return nullptr;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        auto it = lists_.find(s);
        if (it == lists_.end()) {
            it = lists_.emplace(s, List{}).first;
            CHECK(cudaEventCreateWithFlags(&it->second.freed, cudaEventDisableTiming));
        }
        it->second.blocks.push_back(static_cast<char*>(p));
        // One event a stream, recorded again at every free: a wait queued
        // before this record keeps the earlier one, and a later wait covers
        // every block the list holds.
        CHECK(cudaEventRecord(it->second.freed, s));
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        for (auto& [st, list] : lists_) CHECK(cudaEventDestroy(list.freed));
        lists_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    // A stream's given-back blocks, and one event of that stream's,
    // recorded at its latest free.
    struct List {
        std::vector<char*> blocks;
        cudaEvent_t freed = nullptr;
    };
    std::map<cudaStream_t, List> lists_;
};
