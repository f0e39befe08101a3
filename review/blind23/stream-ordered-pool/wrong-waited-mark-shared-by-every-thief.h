// kind: wrong (a race, the record only: once one stream waited on a giver's record, every other stream that steals a block that giver gave back before it queues no wait; errors in the printed line only by timing (SPIN_US))
// mistake: the number of the record already waited for is kept once per giver (a field of its Mark), not per (thief, giver) pair: 'the giver remembers it was waited for'
// why it is wrong: a wait orders only the stream that queued it: stream C stealing after stream B waited is ordered after nothing of the giver's, and may fill the block while the giver's kernels still read it
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
#include <utility>
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
        // Its own newest block first: s's order already holds its work.
        auto mine = kept_.find(s);
        if (mine != kept_.end() && !mine->second.empty()) {
            char* p = mine->second.back().p;
            mine->second.pop_back();
            own++;
            return p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        // Another stream's oldest block: s waits for the giver's record
        // unless it already waits behind one at least as late.
        for (auto& kv : kept_) {
            if (kv.first == s || kv.second.empty()) continue;
            const Kept k = kv.second.front();
            kv.second.erase(kv.second.begin());
            Mark& m = marks_[kv.first];
            unsigned long& behind = m.waited;
            if (behind < k.rec) {
                CHECK(cudaStreamWaitEvent(s, m.ev, 0));
                behind = m.recs;   // the record the wait just bound to
            }
            stolen++;
            return k.p;
        }
        return nullptr;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        Mark& m = marks_[s];
        if (m.ev == nullptr) CHECK(cudaEventCreateWithFlags(&m.ev, cudaEventDisableTiming));
        CHECK(cudaEventRecord(m.ev, s));
        m.recs++;
        kept_[s].push_back(Kept{static_cast<char*>(p), m.recs});
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        for (auto& kv : marks_)
            if (kv.second.ev != nullptr) CHECK(cudaEventDestroy(kv.second.ev));
        marks_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    // A block given back, and the number of its giver's record made then.
    struct Kept {
        char* p;
        unsigned long rec;
    };
    // A giving stream's one event and how many times it was recorded.
    struct Mark {
        cudaEvent_t ev = nullptr;
        unsigned long recs = 0;
        unsigned long waited = 0;   // the latest record a thief already waits behind
    };
    std::map<cudaStream_t, std::vector<Kept>> kept_;   // by giving stream, oldest first
    std::map<cudaStream_t, Mark> marks_;               // by giving stream
    // (thief, giver): the giver's latest record the thief already waits behind.
    std::map<std::pair<cudaStream_t, cudaStream_t>, unsigned long> waited_;
};
