// kind: an inverted condition: the own-list search takes other streams'
//   blocks
// mistake: the loop that looks for a block the stream gave back itself skips
//   the entries of its own stream instead of the others' (`==` for `!=`), so
//   the newest block ANOTHER stream gave back is handed out as the stream's
//   own, with no wait.
// why it is wrong: a block another stream gave back may still be read by that
//   stream's kernels: handed out with no wait, the new owner's fill can land
//   while the old owner's check runs (an unordered use, and errors when the
//   race lands); the counts say "own" for blocks that were stolen.
// source: kokkos/kokkos#4673 ("Fix a bug in CUDA scratch memory pool": the
//   acquire loop did "the opposite of what we want to do", marking free
//   entries busy and taking the wrong one).
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
        for (size_t i = given_.size(); i-- > 0;) {
            if (given_[i].stream == s) continue;
            Given g = given_[i];
            given_.erase(given_.begin() + (long)i);
            spare_.push_back(g.event);
            own++;
            return g.block;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        if (given_.empty()) return nullptr;
        Given g = given_.front();   // the oldest give-back of another stream
        given_.erase(given_.begin());
        CHECK(cudaStreamWaitEvent(s, g.event, 0));
        spare_.push_back(g.event);  // the wait has taken its record
        stolen++;
        return g.block;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        cudaEvent_t e;
        if (spare_.empty()) {
            CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
            made_.push_back(e);
        } else {
            e = spare_.back();
            spare_.pop_back();
        }
        CHECK(cudaEventRecord(e, s));
        given_.push_back({static_cast<char*>(p), s, e});
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        for (cudaEvent_t e : made_) CHECK(cudaEventDestroy(e));
        made_.clear();
        spare_.clear();
        given_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    struct Given {
        char* block;
        cudaStream_t stream;   // the stream that gave it back
        cudaEvent_t event;     // recorded there at the give-back
    };
    std::vector<Given> given_;         // in the order they were given back
    std::vector<cudaEvent_t> spare_;   // events no block holds
    std::vector<cudaEvent_t> made_;    // every event made, for the destructor
};
