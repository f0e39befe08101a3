// kind: wrong (the record only: a leak of events, one for every give-back but the last of each block (hundreds in the default run); every printed line is right)
// mistake: deallocate makes a new event for the block at every give-back (cudaEventCreateWithFlags into the slot, then record), dropping the one the slot held without destroying it; the destructor destroys only the events the slots hold at the end.
// why it is wrong: each give-back's wait still has its event, so the order is right, but every replaced event is lost: the pool made them and never destroys them.
// source: chelsea0x3b/cudarc#77 (a new event for each deallocation, and when to destroy it)
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
        slots_.resize(static_cast<size_t>(blocks));
        for (Slot& x : slots_) CHECK(cudaEventCreateWithFlags(&x.ev, cudaEventDisableTiming));
    }

    // The counts main prints: blocks served from the allocating stream's
    // own free list, never used before, and taken from another stream's.
    int own = 0, fresh = 0, stolen = 0;

    // allocate returns a block for work on stream s, or nullptr when every
    // block is handed out. A block another stream freed may still be in
    // use by that stream's kernels: s must not touch it before they end,
    // and the host must not wait for them.
    void* allocate(cudaStream_t s) {
        for (size_t k = free_.size(); k-- > 0;) {
            int i = free_[k];
            if (slots_[i].by == s) {   // s's own order already covers it
                free_.erase(free_.begin() + static_cast<long>(k));
                own++;
                return chunk_ + static_cast<size_t>(i) * block_;
            }
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        if (free_.empty()) return nullptr;
        int i = free_.front();
        free_.erase(free_.begin());
        CHECK(cudaStreamWaitEvent(s, slots_[i].ev, 0));
        stolen++;
        return chunk_ + static_cast<size_t>(i) * block_;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        int i = static_cast<int>((static_cast<char*>(p) - chunk_) / static_cast<long>(block_));
        CHECK(cudaEventCreateWithFlags(&slots_[i].ev, cudaEventDisableTiming));   // a fresh one for this give-back
        CHECK(cudaEventRecord(slots_[i].ev, s));
        slots_[i].by = s;
        free_.push_back(i);
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        for (Slot& x : slots_) CHECK(cudaEventDestroy(x.ev));
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    struct Slot {
        cudaStream_t by = nullptr;   // the stream that gave the block back last
        cudaEvent_t ev = nullptr;    // recorded on it at that give-back
    };
    std::vector<Slot> slots_;        // one a block, by its index in the chunk
    std::vector<int> free_;          // given-back blocks, oldest first
};
