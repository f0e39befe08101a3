// kind: wrong (a race and the record: a stream taking another stream's free block waits for its own event instead: in phase 1's first round stream 1 takes the rest of stream 0's new chunk behind a wait for nothing (its event not yet recorded), its fill racing the upstream's clear on stream 0; in phase 2 stream 0 takes stream 1's block while stream 1's last sum may still read it; unordered uses every run, sums wrong by timing)
// mistake: allocate makes s wait on event_of(s), 'wait until the asker's own work is done', instead of on the event of the stream in whose order the block is free
// why it is wrong: the block is free only in the freeing stream's order; only that stream's event, recorded at its free, orders the taker after the work on the block
// source: own
// A pool resource over any upstream resource: the file to complete.
#pragma once
#include <algorithm>
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
        for (const Chunk& ch : chunks_) upstream_.deallocate(mr::stream_ref{cudaStream_t{}}, ch.base, ch.size);
        chunks_.clear();
        for (const auto& e : events_) CHECK(cudaEventDestroy(e.second));
        events_.clear();
    }

    // allocate hands out a block of at least `bytes` for work on
    // `stream`, starting on a multiple of 256 bytes: the best fit among
    // the free blocks, those `stream` freed itself first; when none fits,
    // from a new chunk. The host never waits here.
    void* allocate(mr::stream_ref stream, size_t bytes, size_t alignment = mr::default_alignment) {
        mr::check_alignment(alignment);   // at most 256: every block starts 256-aligned
        const cudaStream_t s = stream.get();
        const size_t n = round_up(bytes == 0 ? 1 : bytes);
        // One walk over every chunk's segments: the best free one that
        // holds n, a segment free in s's own order before any other, then
        // the smaller, then the lower address.
        int bc = -1;
        size_t bi = 0;
        bool bown = false;
        for (int c = 0; c < (int)chunks_.size(); c++)
            for (size_t i = 0; i < chunks_[c].segs.size(); i++) {
                const Seg& g = chunks_[c].segs[i];
                if (!g.free || g.size < n) continue;
                const bool own = g.tag == s;
                if (bc >= 0) {
                    const Seg& b = chunks_[bc].segs[bi];
                    if (bown && !own) continue;
                    if (own == bown && (g.size > b.size || (g.size == b.size && chunks_[c].base + g.off > chunks_[bc].base + b.off))) continue;
                }
                bc = c;
                bi = i;
                bown = own;
            }
        if (bc < 0) {
            // Nothing fits: a new chunk, ready in s's order (the upstream
            // clears it there); s's event recorded after it, so that a
            // stream taking its rest later waits for that.
            const size_t size = std::max(chunk_, n);
            char* base = static_cast<char*>(upstream_.allocate(stream, size));
            CHECK(cudaEventRecord(event_of(s), s));
            chunks_.push_back(Chunk{base, size, std::vector<Seg>{Seg{0, size, true, s}}});
            bc = (int)chunks_.size() - 1;
            bi = 0;
        } else if (!bown) {
            // Free in another stream's order: s waits for that stream's
            // latest free (recorded at each free, so after this one).
            CHECK(cudaStreamWaitEvent(s, event_of(s), 0));
        }
        Chunk& ch = chunks_[bc];
        Seg& g = ch.segs[bi];
        const Seg rest{g.off + n, g.size - n, true, g.tag};   // still free in the same stream's order
        g.size = n;
        g.free = false;
        g.tag = s;   // while handed out: the stream that took it
        if (rest.size > 0) ch.segs.insert(ch.segs.begin() + bi + 1, rest);
        return ch.base + ch.segs[bi].off;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        const cudaStream_t s = stream.get();
        char* q = static_cast<char*>(p);
        for (Chunk& ch : chunks_) {
            if (q < ch.base || q >= ch.base + ch.size) continue;
            const size_t off = static_cast<size_t>(q - ch.base);
            const auto it = std::lower_bound(ch.segs.begin(), ch.segs.end(), off,
                                             [](const Seg& g, size_t o) { return g.off < o; });
            if (it == ch.segs.end() || it->off != off || it->free) return;   // not a block handed out
            // Free once s's work so far is done: s's event marks that.
            CHECK(cudaEventRecord(event_of(s), s));
            it->free = true;
            it->tag = s;
            // Neighbours join only when free in the same stream's order as
            // the block, now s's (a chunk's segments never border another
            // chunk's here).
            const size_t i = static_cast<size_t>(it - ch.segs.begin());
            if (i + 1 < ch.segs.size() && ch.segs[i + 1].free && ch.segs[i + 1].tag == ch.segs[i].tag) {
                ch.segs[i].size += ch.segs[i + 1].size;
                ch.segs.erase(ch.segs.begin() + i + 1);
            }
            if (i > 0 && ch.segs[i - 1].free && ch.segs[i - 1].tag == ch.segs[i].tag) {
                ch.segs[i - 1].size += ch.segs[i].size;
                ch.segs.erase(ch.segs.begin() + i);
            }
            return;
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

    // What else the pool keeps: its chunks, each with its own sorted
    // vector of segments that cover it side by side, free or handed out;
    // a block is a segment, found by its chunk's address range and a
    // binary search on its offset.
    struct Seg {
        size_t off;         // from the chunk's start, a multiple of 256
        size_t size;        // a multiple of 256
        bool free;
        cudaStream_t tag;   // free: the stream in whose order it is free; handed out: the taker
    };
    struct Chunk {
        char* base;
        size_t size;              // as asked of the upstream, given back so
        std::vector<Seg> segs;    // in address order, covering [base, base + size)
    };
    std::vector<Chunk> chunks_;

    static size_t round_up(size_t n) { return (n + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment; }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
