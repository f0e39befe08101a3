// kind: wrong (default output: whenever the asker has no free block of its own that fits, a new chunk is taken although another stream's free block would do: by my trace B's first request in phase 1 takes a chunk of its own ('1. ... 2 chunk(s) taken', 1 wanted), phase 3's 4 MiB one more (3 where 2 are wanted), and 'upstream: 4 chunks taken' at the end (3 wanted); the sums right)
// mistake: allocate, finding no fitting block of the asker's own, goes straight to the upstream, 'another stream's free block is not safe to take'
// why it is wrong: it is safe once the asker waits for the freeing stream's event, without the host waiting; the contract asks for the best fit among all free blocks (the asker's own first) before a new chunk
// source: own
// A pool resource over any upstream resource: the file to complete.
#pragma once
#include <algorithm>
#include <functional>
#include <iterator>
#include <list>
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
        // TODO 1: give back what the pool took and made.
        for (const Chunk& c : chunks_) upstream_.deallocate(mr::stream_ref{c.stream}, c.base, c.bytes);
        chunks_.clear();
        segs_.clear();
        out_.clear();
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
        const size_t n = std::max<size_t>(1, (bytes + mr::default_alignment - 1) / mr::default_alignment) * mr::default_alignment;
        auto best = bestFit(n, s, true);
        if (best == segs_.end()) {
            const size_t size = std::max(chunk_, n);
            char* base = static_cast<char*>(upstream_.allocate(stream, size));
            chunks_.push_back(Chunk{base, size, s});
            // The chunk is ready in s's order, after the upstream's work:
            // another stream taking its rest waits for this record.
            CHECK(cudaEventRecord(event_of(s), s));
            best = segs_.insert(segs_.end(), Seg{base, size, chunks_.size() - 1, true, s});
        }
        if (best->bytes > n) {
            // The rest stays free in the order it was free in.
            segs_.insert(std::next(best), Seg{best->base + n, best->bytes - n, best->chunk, true, best->stream});
            best->bytes = n;
        }
        best->free = false;
        out_[best->base] = best;
        return best->base;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        // TODO 3: find p, mark when it is free, and join it with its
        // neighbours.
        auto found = out_.find(static_cast<char*>(p));
        if (found == out_.end()) return;
        const cudaStream_t s = stream.get();
        auto it = found->second;
        out_.erase(found);
        CHECK(cudaEventRecord(event_of(s), s));
        it->free = true;
        it->stream = s;
        auto nx = std::next(it);
        if (nx != segs_.end() && joins(*it, *nx)) {
            it->bytes += nx->bytes;
            segs_.erase(nx);
        }
        if (it != segs_.begin()) {
            auto pv = std::prev(it);
            if (joins(*pv, *it)) {
                pv->bytes += it->bytes;
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
    struct Chunk {
        char* base;
        size_t bytes;
        cudaStream_t stream;  // the stream it was asked for, for its return
    };
    struct Seg {
        char* base;
        size_t bytes;
        size_t chunk;         // index into chunks_
        bool free;
        cudaStream_t stream;  // when free: in whose order
    };
    using SegIt = std::list<Seg>::iterator;
    std::vector<Chunk> chunks_;
    std::list<Seg> segs_;                      // each chunk's segments together, by address
    std::unordered_map<char*, SegIt> out_;     // handed-out blocks

    // joins says whether free neighbours a (lower) and b may become one.
    static bool joins(const Seg& a, const Seg& b) {
        return a.free && b.free && a.chunk == b.chunk && a.stream == b.stream && a.base + a.bytes == b.base;
    }

    // bestFit is the smallest free segment of at least n bytes, free in
    // s's order (own) or in another stream's (!own); ties to the lower
    // address; segs_.end() when none.
    SegIt bestFit(size_t n, cudaStream_t s, bool own) {
        SegIt best = segs_.end();
        for (SegIt it = segs_.begin(); it != segs_.end(); ++it) {
            if (!it->free || it->bytes < n || (it->stream == s) != own) continue;
            if (best == segs_.end() || it->bytes < best->bytes ||
                (it->bytes == best->bytes && std::less<char*>()(it->base, best->base)))
                best = it;
        }
        return best;
    }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
