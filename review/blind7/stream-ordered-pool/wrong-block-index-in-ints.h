// kind: wrong (one event for several blocks)
// mistake: the pool keeps an event per block instead of per stream (made in the constructor, one per block), and finds a block's event from its address as ((int*)p - (int*)chunk_) / block_, an index in ints divided by a size in bytes.
// why it is wrong: the index is a quarter of the block's number, so blocks 0 to 3 share event 0, 4 to 7 event 1, and so on: a steal waits for whichever of those blocks was given back last, possibly on another stream, not for the stream that gave this block back; the output is right unless the race lands, and the hand-off run (--handoff) makes it likelier.
// source: no public thread found for this exact slip; the kind is issue 36's 'a single event standing in for each block's own' (blind sets graded in session 16), and NVIDIA/cub#156 (a block's event that does not stand for the block's own last use)
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
        events_.resize(blocks);
        for (auto& e : events_) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
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
            char* p = list.blocks.front();
            CHECK(cudaStreamWaitEvent(s, event_of(p), 0));
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
        if (it == lists_.end()) it = lists_.emplace(s, List{}).first;
        it->second.blocks.push_back(static_cast<char*>(p));
        CHECK(cudaEventRecord(event_of(p), s));   // the block's own event
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        for (auto& e : events_) CHECK(cudaEventDestroy(e));
        lists_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    // A stream's given-back blocks; each block has an event of its own.
    struct List {
        std::vector<char*> blocks;
    };
    std::vector<cudaEvent_t> events_;
    cudaEvent_t event_of(void* p) const { return events_[((int*)p - (int*)chunk_) / block_]; }
    std::map<cudaStream_t, List> lists_;
};
