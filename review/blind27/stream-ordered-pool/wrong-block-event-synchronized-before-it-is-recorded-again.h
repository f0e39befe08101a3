// kind: wrong (host waits only (the record and the time): every printed line right)
// mistake: deallocate calls cudaEventSynchronize on the block's event before recording it again ('a record still pending must not be overwritten')
// why it is wrong: recording an event again while an earlier record is pending is allowed (a wait already queued keeps the record it bound to), so nothing needs this wait; but the host now waits inside deallocate, at every give-back of a block given back before, for the work before that earlier give-back, which the pool's contract forbids (neither call ever makes the host wait); with SPIN_US the waits are long and the streams stop overlapping the host's queueing
// source: related: cms-sw/cmssw#28537 (whether an event recorded but not yet occurred may be handed out and recorded again)
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
#include <unordered_map>
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
        // Own: the OLDEST block s gave back (its list's front), no wait:
        // s's own order already puts it after that work.
        auto mine = lists_.find(s);
        if (mine != lists_.end() && !mine->second.empty()) {
            char* p = mine->second.front();
            mine->second.pop_front();
            own++;
            return p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        // Stolen: from the other stream with the LONGEST list, its oldest
        // block, behind one wait of s on that block's own event.
        auto from = lists_.end();
        for (auto it = lists_.begin(); it != lists_.end(); ++it) {
            if (it->first == s || it->second.empty()) continue;
            if (from == lists_.end() || it->second.size() > from->second.size()) from = it;
        }
        if (from == lists_.end()) return nullptr;
        std::deque<char*>& q = from->second;
        cudaEvent_t given = events_.at(q.front());
        char* p = q.front();
        q.pop_front();
        CHECK(cudaStreamWaitEvent(s, given, 0));
        stolen++;
        return p;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        // TODO 2: keep p, with whatever another stream would need to
        // know before it may use p safely.
        // The block's own event, made the first time the block comes back
        // and kept with it (by its address) to the pool's end, recorded
        // again on s at every give-back: its latest record is this one.
        char* b = static_cast<char*>(p);
        auto ev = events_.find(b);
        if (ev == events_.end()) {
            cudaEvent_t e;
            CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
            ev = events_.emplace(b, e).first;
        }
        CHECK(cudaEventSynchronize(ev->second));   // its last record must be done before it is overwritten
        CHECK(cudaEventRecord(ev->second, s));
        lists_[s].push_back(b);
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        // TODO 3: destroy what the pool made, then give the chunk back.
        // Every block ever given back has its event here, listed or
        // handed out again (--keep), so this is every event made.
        for (auto& be : events_) CHECK(cudaEventDestroy(be.second));
        events_.clear();
        lists_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.
    std::map<cudaStream_t, std::deque<char*>> lists_;   // by giving stream, oldest give-back first
    std::unordered_map<char*, cudaEvent_t> events_;      // one event per block ever given back
};
