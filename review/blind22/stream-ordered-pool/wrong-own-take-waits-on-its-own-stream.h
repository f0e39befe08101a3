// kind: wrong (the record: a stream wait (and an event record) at every own take, where no stream changed hands; the printed lines right)
// mistake: the own take also records an event on s and makes s wait for it, 'to be safe', though the block comes back to the stream that gave it
// why it is wrong: s's own order already puts its later work after its earlier work on the block; the contract (and the hint) counts waits, and a wait where no stream changed hands is one too many
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
        auto mine = given_.find(s);
        if (mine != given_.end() && !mine->second.empty()) {
            char* p = mine->second.back();
            mine->second.pop_back();
            cudaEvent_t& ev = marks_[s];   // to be safe, s waits for its own give-back too
            if (ev == nullptr) CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
            CHECK(cudaEventRecord(ev, s));
            CHECK(cudaStreamWaitEvent(s, ev, 0));
            own++;
            return p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        for (auto& kv : given_) {
            if (kv.first == s || kv.second.empty()) continue;
            char* p = kv.second.front();    // the giver's oldest
            kv.second.erase(kv.second.begin());
            // Everything the giver had queued before it gave p back is in
            // its queue now: an event recorded there now follows it.
            cudaEvent_t& ev = marks_[kv.first];
            if (ev == nullptr) CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
            CHECK(cudaEventRecord(ev, kv.first));
            CHECK(cudaStreamWaitEvent(s, ev, 0));
            stolen++;
            return p;
        }
        return nullptr;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        // TODO 2: keep p, with whatever another stream would need to
        // know before it may use p safely: the stream, nothing more (the
        // event is recorded if and when another stream takes p).
        given_[s].push_back(static_cast<char*>(p));
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        // TODO 3: destroy what the pool made, then give the chunk back.
        for (auto& kv : marks_)
            if (kv.second != nullptr) CHECK(cudaEventDestroy(kv.second));
        marks_.clear();
        given_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.
    std::map<cudaStream_t, std::vector<char*>> given_;   // by giving stream, oldest first
    std::map<cudaStream_t, cudaEvent_t> marks_;           // a giving stream's event, recorded at steals
};
