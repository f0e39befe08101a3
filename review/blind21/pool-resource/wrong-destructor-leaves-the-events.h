// kind: wrong (the record only: each pool's events (one per stream that freed or took a new chunk, two or three a pool) are never destroyed; the output right)
// mistake: the destructor gives the chunks back and clears the list of events without cudaEventDestroy, 'the vector frees its entries'
// why it is wrong: every event the pool made must go back with the pool: clearing the vector only forgets the handles
// source: related: llnl/camp#71 (event wrappers that create CUDA events and never free them)
// A pool resource over any upstream resource: the file to complete.
#pragma once
#include <algorithm>
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
        for (const Span& c : chunks_) upstream_.deallocate(mr::stream_ref{cudaStream_t{}}, c.at, c.bytes);
        chunks_.clear();
        events_.clear();
    }

    // allocate hands out a block of at least `bytes` for work on
    // `stream`, starting on a multiple of 256 bytes: the best fit among
    // the free blocks, those `stream` freed itself first; when none fits,
    // from a new chunk. The host never waits here.
    void* allocate(mr::stream_ref stream, size_t bytes, size_t alignment = mr::default_alignment) {
        mr::check_alignment(alignment);   // at most 256: every block starts 256-aligned
        const size_t need = std::max<size_t>(1, (bytes + mr::default_alignment - 1) / mr::default_alignment) * mr::default_alignment;
        const cudaStream_t s = stream.get();
        // One pass over the free blocks: the best fit among those free in
        // s's own order, and the best fit among the others.
        long own = -1, other = -1;
        for (size_t i = 0; i < free_.size(); i++) {
            const Free& f = free_[i];
            if (f.bytes < need) continue;
            long& best = f.stream == s ? own : other;
            if (best < 0 || f.bytes < free_[best].bytes || (f.bytes == free_[best].bytes && f.at < free_[best].at)) best = (long)i;
        }
        long pick = own >= 0 ? own : other;
        if (pick >= 0 && own < 0) {
            // Another stream's block: s follows that stream's work on it.
            CHECK(cudaStreamWaitEvent(s, event_of(free_[pick].stream), 0));
        }
        if (pick < 0) {
            // Nothing fits: a new chunk, ready in s's order; s's event is
            // recorded after the upstream's work on it, so that another
            // stream taking the rest later follows that work too.
            const size_t bytes2 = std::max(chunk_, need);
            char* at = static_cast<char*>(upstream_.allocate(stream, bytes2));
            chunks_.push_back({at, bytes2, 0});
            CHECK(cudaEventRecord(event_of(s), s));
            free_.push_back({at, bytes2, chunks_.size() - 1, s});
            pick = (long)free_.size() - 1;
        }
        Free f = free_[pick];
        // The block is cut from the front; the rest stays free, in the
        // order of the stream it was free in.
        if (f.bytes == need) {
            free_[pick] = free_.back();
            free_.pop_back();
        } else {
            free_[pick].at += need;
            free_[pick].bytes -= need;
        }
        out_[f.at] = {f.at, need, f.chunk};
        return f.at;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        auto it = out_.find(static_cast<char*>(p));
        if (it == out_.end()) return;
        const Span b = it->second;
        out_.erase(it);
        const cudaStream_t s = stream.get();
        CHECK(cudaEventRecord(event_of(s), s));
        Free g{b.at, b.bytes, b.chunk, s};
        // Join with a free neighbour on either side: the same chunk, and
        // free in the same stream's order (else the two may not be ready
        // at the same point of any one stream).
        for (size_t i = 0; i < free_.size();) {
            Free& f = free_[i];
            const bool before = f.at + f.bytes == g.at, after = g.at + g.bytes == f.at;
            if ((before || after) && f.chunk == g.chunk && f.stream == g.stream) {
                if (before) g.at = f.at;
                g.bytes += f.bytes;
                free_[i] = free_.back();
                free_.pop_back();
                continue;
            }
            i++;
        }
        free_.push_back(g);
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

    // What else the pool keeps: each chunk as the upstream gave it; the
    // blocks handed out, in a hash table from their start (their size and
    // chunk with them); the free blocks in an unordered vector, each with
    // its chunk and the stream in whose order it is free.
    struct Span {
        char* at;
        size_t bytes;
        size_t chunk;  // for a chunk itself: unused
    };
    struct Free {
        char* at;
        size_t bytes;
        size_t chunk;
        cudaStream_t stream;
    };
    std::vector<Span> chunks_;
    std::unordered_map<char*, Span> out_;
    std::vector<Free> free_;
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
