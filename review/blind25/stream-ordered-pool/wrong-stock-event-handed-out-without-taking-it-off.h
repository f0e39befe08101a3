// kind: wrong (the program's own exit status: an error from cudaEventDestroy when the pool ends (the same event destroyed again), after every line printed; and a race in the record at steals (an entry's event recorded again by a later give-back on another stream))
// mistake: deallocate takes an event from the stock with spare_.back() but forgets spare_.pop_back(), so the event stays in the stock while an entry holds it
// why it is wrong: from then on every give-back records the same event, so a thief's wait is for whatever stream recorded it last, not for the block's giver; and the event appears in the stock and on the lists many times, so the destructor destroys it more than once
// source: related: torch/cutorch#222 (one event recorded on several streams: a wait on it covers only the last record)
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
            // s gave it back itself: its own order already covers the work.
            Entry e = mine->second.back();
            mine->second.pop_back();
            spare_.push_back(e.done);
            own++;
            return e.block;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        // Another stream's: the OLDEST give-back of all (each list is in
        // give-back order, so a list's oldest is its front), whose work is
        // the likeliest to be done already.
        auto from = given_.end();
        for (auto it = given_.begin(); it != given_.end(); ++it) {
            if (it->first == s || it->second.empty()) continue;
            if (from == given_.end() || it->second.front().seq < from->second.front().seq) from = it;
        }
        if (from == given_.end()) return nullptr;
        Entry e = from->second.front();
        from->second.erase(from->second.begin());
        // s comes after the giver's work up to the give-back; the wait
        // keeps what the event held when it was queued, so the event may
        // be recorded again from now on.
        CHECK(cudaStreamWaitEvent(s, e.done, 0));
        spare_.push_back(e.done);
        stolen++;
        return e.block;
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        // TODO 2: keep p, with whatever another stream would need to
        // know before it may use p safely.
        cudaEvent_t done;
        if (spare_.empty()) {
            CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
        } else {
            done = spare_.back();
        }
        CHECK(cudaEventRecord(done, s));
        given_[s].push_back(Entry{static_cast<char*>(p), done, seq_++});
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        // TODO 3: destroy what the pool made, then give the chunk back.
        for (auto& kv : given_)
            for (Entry& e : kv.second) CHECK(cudaEventDestroy(e.done));
        for (cudaEvent_t e : spare_) CHECK(cudaEventDestroy(e));
        given_.clear();
        spare_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

private:
    size_t block_;               // the size of every block
    cudaStream_t setup_;
    char* chunk_ = nullptr;
    std::vector<char*> fresh_;   // blocks never handed out
    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.
    struct Entry {
        char* block;
        cudaEvent_t done;         // recorded on the giving stream at the give-back
        unsigned long long seq;   // the give-back's number, over all streams
    };
    std::map<cudaStream_t, std::vector<Entry>> given_;   // by giving stream, oldest first
    std::vector<cudaEvent_t> spare_;   // events no entry holds, to record again
    unsigned long long seq_ = 0;
};
