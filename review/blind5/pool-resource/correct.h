// kind: correct (a design of its own)
// mistake: none. Two std::maps keyed by address (free blocks, blocks handed
//   out), each block with its size, its chunk's index and, when free, the
//   stream that freed it; the given one-event-per-stream event_of. A block
//   taken from another stream's free blocks makes the taker wait for that
//   stream's event, and the rest of the split STAYS tagged with the freeing
//   stream. A new chunk is tagged with the asking stream, whose event is
//   recorded right after the upstream allocation, so that a later taker of
//   its rest waits for it. Joins only between blocks of one chunk freed on
//   one stream.
// why it is wrong: it is not: every free block names the stream whose event
//   covers it, and that event's latest record is at or after the block became
//   free in that stream's order; no join mixes streams or chunks; nothing
//   waits on the host.
// source: own design from the lesson (day 76, "A pool resource over an
//   upstream", "Pitfalls: lifetimes across streams", "Exercise:
//   pool-resource"); RMM's coalescing free list as the lesson describes it.
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
        for (const auto& c : chunks_) upstream_.deallocate_sync(c.first, c.second);
        chunks_.clear();
        free_.clear();
        used_.clear();
        for (const auto& e : events_) cudaEventDestroy(e.second);
        events_.clear();
    }

    // allocate hands out a block of at least `bytes` for work on
    // `stream`, starting on a multiple of 256 bytes: the best fit among
    // the free blocks, those `stream` freed itself first; when none fits,
    // from a new chunk. The host never waits here.
    void* allocate(mr::stream_ref stream, size_t bytes, size_t alignment = mr::default_alignment) {
        mr::check_alignment(alignment);   // at most 256: every block starts 256-aligned
        const size_t need = std::max<size_t>(mr::default_alignment,
                                             (bytes + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment);
        const cudaStream_t s = stream.get();
        auto best = [&](bool own) {
            auto pick = free_.end();
            for (auto it = free_.begin(); it != free_.end(); ++it) {
                if (it->second.bytes < need || (it->second.stream == s) != own) continue;
                if (pick == free_.end() || it->second.bytes < pick->second.bytes) pick = it;
            }
            return pick;
        };
        auto it = best(true);
        if (it == free_.end()) {
            it = best(false);
            if (it != free_.end()) CHECK(cudaStreamWaitEvent(s, event_of(it->second.stream), 0));
        }
        if (it == free_.end()) {
            const size_t size = std::max(chunk_, need);
            char* c = static_cast<char*>(upstream_.allocate(stream, size));
            chunks_.push_back({c, size});
            // the chunk is ready in s's order: a taker of its rest waits for this
            CHECK(cudaEventRecord(event_of(s), s));
            it = free_.emplace(c, Blk{size, s, chunks_.size() - 1}).first;
        }
        char* p = it->first;
        const Blk b = it->second;
        free_.erase(it);
        if (b.bytes > need) free_.emplace(p + need, Blk{b.bytes - need, b.stream, b.chunk});
        used_.emplace(p, Blk{need, s, b.chunk});
        return p;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        auto u = used_.find(static_cast<char*>(p));
        if (u == used_.end()) return;
        char* start = u->first;
        Blk b = u->second;
        used_.erase(u);
        b.stream = stream.get();
        CHECK(cudaEventRecord(event_of(b.stream), b.stream));
        auto next = free_.find(start + b.bytes);
        if (next != free_.end() && next->second.chunk == b.chunk && next->second.stream == b.stream) {
            b.bytes += next->second.bytes;
            free_.erase(next);
        }
        auto after = free_.lower_bound(start);
        if (after != free_.begin()) {
            auto prev = std::prev(after);
            if (prev->first + prev->second.bytes == start && prev->second.chunk == b.chunk && prev->second.stream == b.stream) {
                start = prev->first;
                b.bytes += prev->second.bytes;
                free_.erase(prev);
            }
        }
        free_.emplace(start, b);
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

    struct Blk {
        size_t bytes;
        cudaStream_t stream;  // free: the stream that freed it; handed out: the one it went to
        size_t chunk;         // index in chunks_
    };
    std::vector<std::pair<char*, size_t>> chunks_;  // as the upstream gave them
    std::map<char*, Blk> free_, used_;
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
