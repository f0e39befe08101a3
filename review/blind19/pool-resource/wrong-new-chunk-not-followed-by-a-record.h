// kind: wrong (a race and the record: in phase 1's first round stream 1 takes the rest of stream 0's new chunk behind a wait on stream 0's event, which has never been recorded (a wait for nothing): stream 1's fill may run before or while the upstream's memset on stream 0 clears those bytes: an unordered use on every run (and phase 5's A, which takes the rest of C's new chunk, with a third stream); round 0's sum wrong where the memset lands last)
// mistake: allocate takes the new chunk from the upstream without recording the asker's event after it, 'the event is recorded at every free, that is enough'
// why it is wrong: a chunk is ready in the order of the stream that asked for it (the upstream clears it there); another stream that takes its rest must wait for a record made after that, and the asker's latest free came before it
// source: own
// A pool resource over any upstream resource: the file to complete.
#pragma once
#include <algorithm>
#include <iterator>
#include <map>
#include <utility>
#include <vector>
#include "memory_resource.h"

// A coalescing pool over an upstream resource, the core of RMM's
// pool_memory_resource. It takes chunks from its upstream as it needs
// them (chunk bytes each, or a request's own size when that is larger),
// cuts each request's block from a free block, and on deallocate joins
// the block with its free neighbours, so that four blocks freed one by
// one make one large block again. A chunk is the upstream's: its memory
// is ready in the order of the stream that asked for it, and each chunk
// goes back to the upstream whole, once, when the pool is destroyed.
//
// Like RMM's pools it is stream-safe whatever its upstream: a block freed
// on one stream is free in that stream's order, so a later allocate on
// the same stream may take it at once, and one on another stream only
// after that stream's work on it, without the host waiting.
//
// As a resource of RMM 26.06 it inherits from nothing: it has the four
// calls, == and the device_accessible property (memory_resource.h), and
// keeps its upstream as an any_resource. Unlike RMM's pool (whose copies
// share one pool), it cannot be copied: code reaches it through a
// mr::resource_ref.
class pool_resource {
public:
    pool_resource(mr::any_resource upstream, size_t chunk) : upstream_(std::move(upstream)), chunk_(chunk) {}
    pool_resource(const pool_resource&) = delete;
    pool_resource& operator=(const pool_resource&) = delete;

    // The program waits for its streams before the pool goes: the
    // destructor gives every chunk back to the upstream and destroys
    // whatever the pool made.
    ~pool_resource() {
        // TODO 1: give back what the pool took and made.
        for (const auto& c : chunks_) upstream_.deallocate(mr::stream_ref{cudaStream_t{}}, c.first, c.second);
        chunks_.clear();
        segs_.clear();
        for (const auto& e : events_) cudaEventDestroy(e.second);
        events_.clear();
    }

    // allocate hands out a block of at least `bytes` for work on
    // `stream`, starting on a multiple of 256 bytes: the best fit among
    // the free blocks, those `stream` freed itself first; when none fits,
    // from a new chunk. The host never waits here.
    void* allocate(mr::stream_ref stream, size_t bytes, size_t alignment = mr::default_alignment) {
        mr::check_alignment(alignment);   // at most 256: every block starts 256-aligned
        // TODO 2: pick a block, or grow; order `stream` after the work
        // that freed it; keep what the block does not need free.
        const cudaStream_t s = stream.get();
        const size_t n = std::max<size_t>(round_up(bytes), mr::default_alignment);
        auto pick = segs_.end(), other = segs_.end();
        for (auto it = segs_.begin(); it != segs_.end(); ++it) {
            const Seg& g = it->second;
            if (!g.free || g.size < n) continue;
            auto& best = g.tag == s ? pick : other;
            if (best == segs_.end() || g.size < best->second.size) best = it;
        }
        if (pick == segs_.end() && other != segs_.end()) {
            // Free in another stream's order: s follows that stream's
            // latest record, made after its every free.
            CHECK(cudaStreamWaitEvent(s, event_of(other->second.tag), 0));
            pick = other;
        }
        if (pick == segs_.end()) {
            const size_t size = std::max(chunk_, n);
            char* p = static_cast<char*>(upstream_.allocate(stream, size));
            chunks_.push_back({p, size});
            pick = segs_.emplace(p, Seg{size, chunks_.size() - 1, true, s}).first;
        }
        char* at = pick->first;
        Seg& g = pick->second;
        if (g.size > n) segs_.emplace(at + n, Seg{g.size - n, g.chunk, true, g.tag});
        g.size = n;
        g.free = false;
        g.tag = nullptr;
        return at;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        // TODO 3: find p, mark when it is free, and join it with its
        // neighbours.
        auto it = segs_.find(static_cast<char*>(p));
        if (it == segs_.end() || it->second.free) return;
        const cudaStream_t s = stream.get();
        CHECK(cudaEventRecord(event_of(s), s));
        it->second.free = true;
        it->second.tag = s;
        auto next = std::next(it);
        if (next != segs_.end() && joins(it, next)) {
            it->second.size += next->second.size;
            segs_.erase(next);
        }
        if (it != segs_.begin()) {
            auto prev = std::prev(it);
            if (joins(prev, it)) {
                prev->second.size += it->second.size;
                segs_.erase(it);
            }
        }
    }

    // The rest of a resource's interface, given: the sync pair for callers
    // without a stream (the default stream, waited for), ==, and the
    // property that kernels can use the memory.
    void* allocate_sync(size_t bytes, size_t alignment = mr::default_alignment) {
        void* p = allocate(mr::stream_ref{cudaStream_t{}}, bytes, alignment);
        CHECK(cudaStreamSynchronize(cudaStream_t{}));
        return p;
    }
    void deallocate_sync(void* p, size_t bytes, size_t alignment = mr::default_alignment) noexcept {
        deallocate(mr::stream_ref{cudaStream_t{}}, p, bytes, alignment);
    }
    bool operator==(const pool_resource& o) const { return this == &o; }
    bool operator!=(const pool_resource& o) const { return this != &o; }
    friend void get_property(const pool_resource&, mr::device_accessible) {}

private:
    mr::any_resource upstream_;
    size_t chunk_;
    // One event per stream, recorded there at each free: a wait takes
    // its latest record, which comes after every earlier free.
    std::vector<std::pair<cudaStream_t, cudaEvent_t>> events_;

    // event_of is the event of stream s, made the first time it is asked.
    cudaEvent_t event_of(cudaStream_t s) {
        for (const auto& e : events_)
            if (e.first == s) return e.second;
        cudaEvent_t ev;
        CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
        events_.push_back({s, ev});
        return ev;
    }

    // TODO 4: what else the pool keeps: its chunks, its free blocks and
    // the blocks handed out, with what allocate and deallocate need to
    // know of each.
    struct Seg {
        size_t size;
        size_t chunk;        // index in chunks_
        bool free;
        cudaStream_t tag;    // when free: the stream in whose order it is
    };
    using Segs = std::map<char*, Seg>;
    std::vector<std::pair<char*, size_t>> chunks_;   // as the upstream gave them
    Segs segs_;                                      // every segment, by address

    static size_t round_up(size_t n) { return (n + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment; }

    // joins says whether a and the segment right after it may become one:
    // both free, in one chunk, free in one stream's order.
    static bool joins(Segs::iterator a, Segs::iterator b) {
        return a->second.free && b->second.free && a->second.chunk == b->second.chunk && a->second.tag == b->second.tag &&
               a->first + a->second.size == b->first;
    }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
