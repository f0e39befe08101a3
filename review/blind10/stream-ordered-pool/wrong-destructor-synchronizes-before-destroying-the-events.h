// kind: wrong (the record only: a stream synchronisation in the pool, at its
//   end; the data and the counts are right)
// mistake: the destructor synchronizes the setup stream and then every stream
//   it knows (the keys of the given-back map) before destroying the events ("no
//   wait may still need an event when it is destroyed")
// why it is wrong: the pool may not make the host wait, and the lesson fails a
//   cudaStreamSynchronize in the pool; it is also needless: an event destroyed
//   while recorded work is pending is released once that work completes, and
//   main has synchronized every stream before the pool ends
// source: CUDA Runtime API reference, cudaEventDestroy (an event destroyed
//   before its record completes is released once it does), NVIDIA/cccl#7792
//   (synchronizations in a caching allocator that stream order made needless)

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
        auto mine = given_.find(s);
        if (mine != given_.end() && !mine->second.empty()) {
            // s's own give-back: s's order already puts it after the free.
            Given g = mine->second.back();
            mine->second.pop_back();
            spare_.push_back(g.done);
            own++;
            return g.block;
        }
        if (!fresh_.empty()) {
            char* b = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return b;
        }
        // The stream with the most blocks given back lends its oldest one;
        // s waits on the GPU for the work that came before its give-back.
        std::deque<Given>* donor = nullptr;
        for (auto& kv : given_) {
            if (kv.first == s || kv.second.empty()) continue;
            if (donor == nullptr || kv.second.size() > donor->size()) donor = &kv.second;
        }
        if (donor == nullptr) return nullptr;
        Given g = donor->front();
        donor->pop_front();
        CHECK(cudaStreamWaitEvent(s, g.done, 0));
        spare_.push_back(g.done);   // the wait has its record: the event may be recorded again
        stolen++;
        return g.block;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        cudaEvent_t done;
        if (spare_.empty()) {
            CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
            made_.push_back(done);
        } else {
            done = spare_.back();
            spare_.pop_back();
        }
        CHECK(cudaEventRecord(done, s));
        given_[s].push_back(Given{static_cast<char*>(p), done});
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        CHECK(cudaStreamSynchronize(setup_));
        for (auto& kv : given_) CHECK(cudaStreamSynchronize(kv.first));
        for (cudaEvent_t e : made_) CHECK(cudaEventDestroy(e));
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    // A block given back, with the event recorded on the giving stream at
    // its give-back.
    struct Given {
        char* block;
        cudaEvent_t done;
    };
    // The blocks given back, by the stream that gave them, oldest first.
    std::map<cudaStream_t, std::deque<Given>> given_;
    // Events whose last record a wait already holds, ready to be recorded
    // again; made_ is every event the pool made, for the destructor.
    std::vector<cudaEvent_t> spare_;
    std::vector<cudaEvent_t> made_;
};
