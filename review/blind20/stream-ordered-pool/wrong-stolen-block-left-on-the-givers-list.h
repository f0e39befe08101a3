// kind: wrong (the program's own output and the record: a stolen block stays on its giver's lane, so the giver (or a later thief) takes it again while the thief still uses it: one block in use on two streams at once (the record), errors > 0 in most runs (two stamps written into one block while both streams check it), and the lane's list grows with duplicates)
// mistake: the steal reads the oldest block of the richest lane, from->blocks.front(), but never erases it from that lane
// why it is wrong: a block handed out must leave every free list; left on the giver's lane it is handed out twice, and the two holders write and check it at the same time
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
        // TODO 1: return a block s may use once it gets there in its own
        // order: nullptr only when no block is free anywhere, no wait on
        // the host, and own, fresh or stolen counted by where it came
        // from (a block s freed itself, one never used, another's).
        // First the block s gave back last: s's own order already puts its
        // use after every use s made of it.
        auto mine = lanes_.find(s);
        if (mine != lanes_.end() && !mine->second.blocks.empty()) {
            char* p = mine->second.blocks.back();
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
        // Then a block of the stream that holds the most: s waits for that
        // stream's latest give-back, which comes after every block on its
        // list was given back.
        Lane* from = nullptr;
        for (auto& kv : lanes_) {
            if (kv.first == s || kv.second.blocks.empty()) continue;
            if (from == nullptr || kv.second.blocks.size() > from->blocks.size()) from = &kv.second;
        }
        if (from == nullptr) return nullptr;
        CHECK(cudaStreamWaitEvent(s, from->last, 0));
        char* p = from->blocks.front();   // the oldest of its give-backs
        stolen++;
        return p;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        // TODO 2: keep p, with whatever another stream would need to
        // know before it may use p safely.
        // One event a giving stream, made at its first give-back and
        // recorded again at each one: its latest record follows every
        // block on the stream's list.
        Lane& lane = lanes_[s];
        if (lane.last == nullptr) CHECK(cudaEventCreateWithFlags(&lane.last, cudaEventDisableTiming));
        CHECK(cudaEventRecord(lane.last, s));
        lane.blocks.push_back(static_cast<char*>(p));
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        // TODO 3: destroy what the pool made, then give the chunk back.
        for (auto& kv : lanes_) {
            if (kv.second.last != nullptr) CHECK(cudaEventDestroy(kv.second.last));
            kv.second.last = nullptr;
        }
        lanes_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.
    // A lane a giving stream: its blocks in give-back order, and one event
    // recorded at its latest give-back (a steal waits on it: cudaStreamWaitEvent
    // takes the record current at the call, which follows the block's).
    struct Lane {
        std::vector<char*> blocks;
        cudaEvent_t last = nullptr;
    };
    std::map<cudaStream_t, Lane> lanes_;
};
