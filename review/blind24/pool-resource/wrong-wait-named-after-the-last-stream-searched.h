// kind: wrong (other arguments only (three streams), by timing and in the record)
// mistake: allocate, searching the other streams' free blocks, notes the stream to wait for once per map searched, after its search, whenever a best block has been found so far, instead of together with the best block (the one mistake touches two lines of one loop)
// why it is wrong: with two streams there is one other map and the stream is right; with three (phase 5) A's 8 MiB take finds only B's block but, when C's map is searched after B's (the maps are ordered by the streams' handles), waits for C instead of B: A's kernels on B's block may run beside B's (sums 31 and 34 wrong by timing), an unordered use on A in the record
// source: own
// A pool resource over any upstream resource: the file to complete.
#pragma once
#include <algorithm>
#include <iterator>
#include <map>
#include <unordered_map>
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
        for (const Chunk& c : chunks_) upstream_.deallocate(mr::stream_ref{cudaStream_t{}}, c.base, c.asked);
        for (const auto& e : events_) cudaEventDestroy(e.second);
    }

    // allocate hands out a block of at least `bytes` for work on
    // `stream`, starting on a multiple of 256 bytes: the best fit among
    // the free blocks, those `stream` freed itself first; when none fits,
    // from a new chunk. The host never waits here.
    void* allocate(mr::stream_ref stream, size_t bytes, size_t alignment = mr::default_alignment) {
        mr::check_alignment(alignment);   // at most 256: every block starts 256-aligned
        const size_t need = bytes == 0 ? mr::default_alignment : (bytes + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment;
        const cudaStream_t s = stream.get();
        // The asker's own free blocks first: no wait at all.
        Blocks& own = free_[s];
        Blocks::iterator best = fit(own, need, own.end());
        if (best != own.end()) return cut(own, best, need);
        // Then every other stream's, behind a wait for that stream.
        Blocks* from = nullptr;
        cudaStream_t fromStream = nullptr;
        Blocks::iterator fb;
        for (auto& f : free_) {
            if (f.first == s) continue;
            Blocks::iterator it = fit(f.second, need, f.second.end());
            if (it != f.second.end() && (from == nullptr || it->second.bytes < fb->second.bytes)) {
                from = &f.second;
                fb = it;
            }
            if (from != nullptr) fromStream = f.first;
        }
        if (from != nullptr) {
            CHECK(cudaStreamWaitEvent(s, event_of(fromStream), 0));
            return cut(*from, fb, need);
        }
        // Nothing fits: a new chunk, ready in s's order; its rest is free
        // in s's order, after the upstream's work on it.
        const size_t ask = std::max(chunk_, need);
        char* p = static_cast<char*>(upstream_.allocate(stream, ask));
        chunks_.push_back({p, ask});
        CHECK(cudaEventRecord(event_of(s), s));
        own[p] = {ask, chunks_.size() - 1};
        return cut(own, own.find(p), need);
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        auto o = out_.find(static_cast<char*>(p));
        if (o == out_.end()) return;
        const cudaStream_t s = stream.get();
        char* at = o->first;
        size_t bytes = o->second.bytes;
        const size_t chunk = o->second.chunk;
        out_.erase(o);
        // Neighbours are joined only when free in this same stream's order
        // (so in this map) and of the same chunk.
        Blocks& fl = free_[s];
        auto next = fl.find(at + bytes);
        if (next != fl.end() && next->second.chunk == chunk) {
            bytes += next->second.bytes;
            fl.erase(next);
        }
        auto after = fl.lower_bound(at);
        bool joined = false;
        if (after != fl.begin()) {
            auto prev = std::prev(after);
            if (prev->first + prev->second.bytes == at && prev->second.chunk == chunk) {
                prev->second.bytes += bytes;
                joined = true;
            }
        }
        if (!joined) fl[at] = {bytes, chunk};
        // Free from here on in s's order: a taker on another stream waits
        // for this record (or a later one of s's).
        CHECK(cudaEventRecord(event_of(s), s));
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

    struct Chunk {
        char* base;
        size_t asked;  // what the upstream was asked for: what goes back
    };
    struct Block {
        size_t bytes;  // a multiple of 256
        size_t chunk;  // its chunk's index in chunks_
    };
    using Blocks = std::map<char*, Block>;  // by address
    std::vector<Chunk> chunks_;
    // The free blocks, per stream in whose order they are free.
    std::map<cudaStream_t, Blocks> free_;
    std::unordered_map<char*, Block> out_;  // the blocks handed out

    // fit is the smallest block of fl that holds need (the lowest such
    // address on a tie), or none.
    static Blocks::iterator fit(Blocks& fl, size_t need, Blocks::iterator none) {
        Blocks::iterator best = none;
        for (auto it = fl.begin(); it != fl.end(); ++it)
            if (it->second.bytes >= need && (best == none || it->second.bytes < best->second.bytes)) best = it;
        return best;
    }

    // cut hands out the first need bytes of the free block at it; the rest
    // stays free in the same map (the same stream's order).
    void* cut(Blocks& fl, Blocks::iterator it, size_t need) {
        char* p = it->first;
        const Block b = it->second;
        fl.erase(it);
        if (b.bytes > need) fl[p + need] = {b.bytes - need, b.chunk};
        out_[p] = {need, b.chunk};
        return p;
    }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
