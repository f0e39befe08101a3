// kind: correct
// mistake: none. The design: one event per block, made in the constructor and kept for the pool's life, recorded at each
// give-back on the giving stream; free lists by stream in a std::map of block indices; a steal takes the back of the first other
// stream's list and waits that block's event; own reuse waits for nothing.
// why it is wrong: -
// source: -
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
        // One event per block, for the whole life of the pool: recorded when
        // the block is given back, waited on by a stream that takes it from
        // another. A block is given back again only after it was handed out
        // again, so a wait already queued keeps the record it saw.
        done_.resize(blocks);
        for (auto& e : done_) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    }

    // The counts main prints: blocks served from the allocating stream's
    // own free list, never used before, and taken from another stream's.
    int own = 0, fresh = 0, stolen = 0;

    // allocate returns a block for work on stream s, or nullptr when every
    // block is handed out. A block another stream freed may still be in
    // use by that stream's kernels: s must not touch it before they end,
    // and the host must not wait for them.
    void* allocate(cudaStream_t s) {
        std::vector<int>& mine = freed_[s];
        if (!mine.empty()) {   // s's own order already puts its free first
            const int b = mine.back();
            mine.pop_back();
            own++;
            return block(b);
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        for (auto& kv : freed_) {
            if (kv.first == s || kv.second.empty()) continue;
            const int b = kv.second.back();
            kv.second.pop_back();
            // s comes after the work the other stream queued before its free.
            CHECK(cudaStreamWaitEvent(s, done_[b], 0));
            stolen++;
            return block(b);
        }
        return nullptr;
    }

    void deallocate(void* p, cudaStream_t s) {
        const int b = index(p);
        CHECK(cudaEventRecord(done_[b], s));
        freed_[s].push_back(b);
    }

    ~StreamOrderedPool() {
        for (cudaEvent_t e : done_) CHECK(cudaEventDestroy(e));
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    std::map<cudaStream_t, std::vector<int>> freed_;   // blocks given back, by the stream that gave them back
    std::vector<cudaEvent_t> done_;                     // per block: its last give-back
    char* block(int b) const { return chunk_ + (size_t)b * block_; }
    int index(void* p) const { return (int)(((char*)p - chunk_) / (ptrdiff_t)block_); }
};
