// kind: wrong (race: the record at nearly every allocation after the first round (a block given back on one stream handed to another with no wait); the errors count now and then, surely with SPIN_US; the default output's counts also say 0 own, 0 stolen)
// mistake: deallocate records the slot's event but files the block on fresh_, the list of blocks never used, taking it for 'the free list', instead of on free_
// why it is wrong: a block on fresh_ is handed out with no wait at all, so a block another stream gave back while its check kernel still reads it is filled by the next taker at once; the event is recorded and never waited on
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
        // The oldest block s gave back itself: its own order covers it.
        for (size_t k = 0; k < free_.size(); k++) {
            const size_t i = free_[k];
            if (slots_[i].giver == s) {
                free_.erase(free_.begin() + (long)k);
                own++;
                return chunk_ + i * block_;
            }
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        // The oldest block another stream gave back: s waits, on the
        // GPU, for what that stream had queued before the give-back.
        if (!free_.empty()) {
            const size_t i = free_.front();
            free_.erase(free_.begin());
            CHECK(cudaStreamWaitEvent(s, slots_[i].done, 0));
            stolen++;
            return chunk_ + i * block_;
        }
        return nullptr;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        // TODO 2: keep p, with whatever another stream would need to
        // know before it may use p safely.
        const size_t i = static_cast<size_t>(static_cast<char*>(p) - chunk_) / block_;
        if (i >= slots_.size()) slots_.resize(i + 1);
        Slot& slot = slots_[i];
        if (slot.done == nullptr) CHECK(cudaEventCreateWithFlags(&slot.done, cudaEventDisableTiming));
        slot.giver = s;
        CHECK(cudaEventRecord(slot.done, s));
        fresh_.push_back(static_cast<char*>(p));
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        // TODO 3: destroy what the pool made, then give the chunk back.
        for (Slot& slot : slots_)
            if (slot.done != nullptr) CHECK(cudaEventDestroy(slot.done));
        slots_.clear();
        free_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.
    struct Slot {
        cudaStream_t giver = nullptr;   // the stream that gave the block back last
        cudaEvent_t done = nullptr;     // recorded on giver at that give-back
    };
    std::vector<Slot> slots_;    // by block index, grown as blocks come back
    std::vector<size_t> free_;   // indices of the blocks given back, oldest first
};
