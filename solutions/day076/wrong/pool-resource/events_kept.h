// expect: destroys the events it made
// The mistake: the destructor gives the chunks back but leaves the pool's events undestroyed.
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
        // TODO 1: give back what the pool took and made.
        for (const Chunk& c : chunks_) upstream_.deallocate_sync(c.p, c.n);
    }

    // allocate hands out a block of at least `bytes` for work on
    // `stream`, starting on a multiple of 256 bytes: the best fit among
    // the free blocks, those `stream` freed itself first; when none fits,
    // from a new chunk. The host never waits here.
    void* allocate(mr::stream_ref stream, size_t bytes, size_t alignment = mr::default_alignment) {
        mr::check_alignment(alignment);   // at most 256: every block starts 256-aligned
        // TODO 2: pick a block, or grow; order `stream` after the work
        // that freed it; keep what the block does not need free.
        const size_t n = (bytes + mr::default_alignment - 1) & ~(mr::default_alignment - 1);
        const cudaStream_t s = stream.get();
        auto best = free_.end();
        for (auto it = free_.begin(); it != free_.end(); ++it)
            if (it->n >= n && (best == free_.end() || ((it->stream == s) != (best->stream == s) ? it->stream == s : it->n < best->n))) best = it;
        Block b;
        if (best == free_.end()) {   // nothing fits: a new chunk, ready in this stream's order
            chunks_.push_back(Chunk{static_cast<char*>(upstream_.allocate(stream, std::max(n, chunk_))), std::max(n, chunk_)});
            CHECK(cudaEventRecord(event_of(s), s));
            b = Block{chunks_.back().p, chunks_.back().n, chunks_.size() - 1, s};
        } else {
            b = *best;
            free_.erase(best);
            if (b.stream != s) CHECK(cudaStreamWaitEvent(s, event_of(b.stream), 0));
        }
        if (b.n > n) free_.push_back(Block{b.p + n, b.n - n, b.chunk, b.stream});   // the rest stays where it was free
        used_.push_back(Block{b.p, n, b.chunk, s});
        return b.p;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        // TODO 3: find p, mark when it is free, and join it with its
        // neighbours.
        auto it = std::find_if(used_.begin(), used_.end(), [p](const Block& u) { return u.p == p; });
        if (it == used_.end()) return;   // not this pool's block: nothing to give back
        Block b{it->p, it->n, it->chunk, stream.get()};
        used_.erase(it);
        CHECK(cudaEventRecord(event_of(b.stream), b.stream));
        // Only neighbours of the same chunk, freed on the same stream: one
        // event then stands for the whole block.
        for (auto f = free_.begin(); f != free_.end();)
            if (f->chunk == b.chunk && f->stream == b.stream && (f->p + f->n == b.p || b.p + b.n == f->p)) {
                b.p = std::min(b.p, f->p);
                b.n += f->n;
                f = free_.erase(f);
            } else {
                ++f;
            }
        free_.push_back(b);
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
    struct Chunk { char* p; size_t n; };
    struct Block { char* p; size_t n; size_t chunk; cudaStream_t stream; };   // stream: where it was freed
    std::vector<Chunk> chunks_;
    std::vector<Block> free_, used_;
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
