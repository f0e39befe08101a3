// kind: correct
// mistake: none. Design: a lane per giving stream (std::map of stream to lane), each lane ONE event of its own, recorded again on that stream at every give-back, and its blocks newest last; allocate takes s's own newest block (no wait), then a fresh block, and otherwise ADOPTS the whole lane of the other stream that holds the most: ONE cudaStreamWaitEvent of s on that lane's event covers every block on it, all of them move to s's own lane (marked as another's, so each is counted stolen when handed out, later ones with no wait at all), and s's own event is recorded again right after the wait, so that a third stream that takes an adopted block from s waits for the first giver's work too; fewer waits than stolen blocks, more records than give-backs; the destructor destroys every lane's event, then frees the chunk
// why it is wrong: -
// source: own (written from the student file and the course hints)
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
        auto mine = lanes_.find(s);
        if (mine != lanes_.end() && !mine->second.blocks.empty()) return take(mine->second);
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        auto from = lanes_.end();
        for (auto it = lanes_.begin(); it != lanes_.end(); ++it) {
            if (it->first == s || it->second.blocks.empty()) continue;
            if (from == lanes_.end() || it->second.blocks.size() > from->second.blocks.size()) from = it;
        }
        if (from == lanes_.end()) return nullptr;
        // One wait covers the whole lane: its event's last record follows
        // every give-back on it. s then records its own event, so that its
        // lane's event follows the adopted blocks' work as well.
        Lane& to = lane(s);
        CHECK(cudaStreamWaitEvent(s, from->second.event, 0));
        CHECK(cudaEventRecord(to.event, s));
        for (Entry e : from->second.blocks) {
            e.adopted = true;
            to.blocks.push_back(e);
        }
        from->second.blocks.clear();
        return take(to);
    }

    // deallocate gives block p back; it is free for other streams once the
    // work queued on s so far is done.
    void deallocate(void* p, cudaStream_t s) {
        // TODO 2: keep p, with whatever another stream would need to
        // know before it may use p safely.
        Lane& l = lane(s);
        CHECK(cudaEventRecord(l.event, s));   // its last record follows every block on the lane
        l.blocks.push_back(Entry{static_cast<char*>(p), false});
    }

    // The pool ends after every stream that used it was synchronized.
    ~StreamOrderedPool() {
        // TODO 3: destroy what the pool made, then give the chunk back.
        for (auto& kv : lanes_) CHECK(cudaEventDestroy(kv.second.event));
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
        bool adopted;   // given back by another stream, moved here by an adoption
    };
    struct Lane {
        cudaEvent_t event = nullptr;   // recorded on the lane's stream at each give-back (and adoption)
        std::vector<Entry> blocks;     // newest last
    };
    std::map<cudaStream_t, Lane> lanes_;

    Lane& lane(cudaStream_t s) {
        Lane& l = lanes_[s];
        if (l.event == nullptr) CHECK(cudaEventCreateWithFlags(&l.event, cudaEventDisableTiming));
        return l;
    }

    // take hands out the newest block of a lane the caller may already use.
    void* take(Lane& l) {
        Entry e = l.blocks.back();
        l.blocks.pop_back();
        if (e.adopted) stolen++;
        else own++;
        return e.block;
    }
};
