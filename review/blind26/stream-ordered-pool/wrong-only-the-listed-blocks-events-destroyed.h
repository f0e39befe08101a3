// kind: wrong (other arguments only (a leak): with more blocks than the rounds ever take (bench 2 64: two rounds use some nine of 64 blocks) the untouched blocks' events are never destroyed, and with --keep the last round's blocks' events too; the default run gives every block back and has no fresh block left, so nothing leaks and every line is right)
// mistake: the destructor destroys the events of the blocks on the free lists ('the events that belong to given-back blocks'), not the whole table the constructor made
// why it is wrong: the constructor made an event for EVERY block: a block never handed out, or one still handed out when the pool ends, has an event too, which then is never destroyed
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
        // One event per block, made here once and for all (timing off): a
        // block's event is recorded again at each of its give-backs, and a
        // block is never given back twice without being taken in between.
        events_.resize(blocks);
        for (int i = 0; i < blocks; i++)
            CHECK(cudaEventCreateWithFlags(&events_[i], cudaEventDisableTiming));
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
        auto mine = free_.find(s);
        if (mine != free_.end() && !mine->second.empty()) {
            int slot = mine->second.back();   // the newest: s's order has it free already
            mine->second.pop_back();
            own++;
            return block(slot);
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        // Another stream's block: the giving stream that gave back the
        // most blocks so far (its oldest block, whose work ended first),
        // behind that block's event, queued on s; the host does not wait.
        auto giver = free_.end();
        for (auto it = free_.begin(); it != free_.end(); ++it) {
            if (it->first == s || it->second.empty()) continue;
            if (giver == free_.end() || gave_[it->first] > gave_[giver->first]) giver = it;
        }
        if (giver == free_.end()) return nullptr;
        std::vector<int>& list = giver->second;
        int slot = list.front();
        list.erase(list.begin());
        CHECK(cudaStreamWaitEvent(s, events_[slot], 0));
        stolen++;
        return block(slot);
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        // TODO 2: keep p, with whatever another stream would need to
        // know before it may use p safely.
        int slot = static_cast<int>((static_cast<char*>(p) - chunk_) / block_);
        CHECK(cudaEventRecord(events_[slot], s));
        free_[s].push_back(slot);
        gave_[s]++;
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        // TODO 3: destroy what the pool made, then give the chunk back.
        for (auto& kv : free_)
            for (int slot : kv.second) CHECK(cudaEventDestroy(events_[slot]));
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.
    std::vector<cudaEvent_t> events_;                   // one per block, by its index
    std::map<cudaStream_t, std::vector<int>> free_;     // per giving stream, oldest first
    std::map<cudaStream_t, long> gave_;                 // give-backs per stream, ever

    void* block(int slot) const { return chunk_ + static_cast<size_t>(slot) * block_; }
};
