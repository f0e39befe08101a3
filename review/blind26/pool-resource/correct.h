// kind: correct
// mistake: none. Design: the free blocks in ONE std::multimap ORDERED BY SIZE (address, chunk index, the stream in whose order each is free), so allocate walks it from lower_bound(the rounded request) upwards and stops at the first block of its own stream (its best fit), remembering the first block of another stream on the way (the others' best fit), which it takes only when it has none of its own, behind one wait on that stream's event; a cut leaves the rest free under the same stream; the joins find the neighbours by a WALK OVER THE WHOLE INDEX (same chunk, same stream, ending at or starting right after the freed block); the blocks handed out in a std::unordered_map (rounded size, chunk index); a new chunk of max(chunk, request) asked on the asker's stream, the asker's event recorded after it; deallocate records the freeing stream's event; the destructor gives each chunk back on the stream that asked for it, with its size, then destroys the events
// why it is wrong: it is not: the design the wrong files of this exercise are made from
// source: own
// A pool resource over any upstream resource: the file to complete.
#pragma once
#include <algorithm>
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
        for (const Chunk& c : chunks_) upstream_.deallocate(mr::stream_ref{c.stream}, c.base, c.size);
        chunks_.clear();
        free_.clear();
        out_.clear();
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
        const size_t need = bytes == 0 ? unit : (bytes + unit - 1) / unit * unit;
        // The free index is ordered by size: from the first block that
        // fits upwards, the first of the asker's own is its best fit, and
        // the first of any other stream's is the others' best fit.
        auto own = free_.end(), other = free_.end();
        for (auto it = free_.lower_bound(need); it != free_.end(); ++it) {
            if (it->second.stream == s) {
                own = it;
                break;
            }
            if (other == free_.end()) other = it;
        }
        auto pick = own != free_.end() ? own : other;
        if (pick != free_.end()) {
            const Block b = pick->second;
            const size_t size = pick->first;
            free_.erase(pick);
            // Another stream's block is free only after that stream's work
            // on it: this stream waits for that stream's latest free.
            if (b.stream != s) CHECK(cudaStreamWaitEvent(s, event_of(b.stream), 0));
            // The rest stays free in the order it was free in.
            if (size > need) free_.insert({size - need, Block{b.addr + need, b.chunk, b.stream}});
            out_[b.addr] = Out{need, b.chunk};
            return b.addr;
        }
        // Nothing fits: a chunk of its own, ready in this stream's order;
        // this stream's event is recorded after it, so that another
        // stream taking its rest waits for the upstream's work too.
        const size_t size = std::max(chunk_, need);
        char* base = static_cast<char*>(upstream_.allocate(stream, size));
        if (base == nullptr) return nullptr;
        CHECK(cudaEventRecord(event_of(s), s));
        chunks_.push_back(Chunk{base, size, s});
        const int chunk = (int)chunks_.size() - 1;
        if (size > need) free_.insert({size - need, Block{base + need, chunk, s}});
        out_[base] = Out{need, chunk};
        return base;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        auto found = out_.find(static_cast<char*>(p));
        if (found == out_.end()) return;
        const cudaStream_t s = stream.get();
        char* addr = found->first;
        size_t size = found->second.size;
        const int chunk = found->second.chunk;
        out_.erase(found);
        CHECK(cudaEventRecord(event_of(s), s));
        // Its free neighbours of the same chunk, free in the same stream's
        // order, found by a walk over the index (ordered by size, not by
        // address): the block below ends where this one starts, the block
        // above starts where this one ends.
        auto below = free_.end(), above = free_.end();
        for (auto it = free_.begin(); it != free_.end(); ++it) {
            const Block& b = it->second;
            if (b.chunk != chunk || b.stream != s) continue;
            if (b.addr + it->first == addr) below = it;
            else if (b.addr == addr + size) above = it;
        }
        if (below != free_.end()) {
            addr = below->second.addr;
            size += below->first;
            free_.erase(below);
        }
        if (above != free_.end()) {
            size += above->first;
            free_.erase(above);
        }
        free_.insert({size, Block{addr, chunk, s}});
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

    static constexpr size_t unit = mr::default_alignment;
    // A chunk: where the upstream put it, its size, and the stream that
    // asked for it (it goes back on that stream, whole).
    struct Chunk {
        char* base;
        size_t size;
        cudaStream_t stream;
    };
    // A free block: where it starts, its chunk, and the stream in whose
    // order it is free.
    struct Block {
        char* addr;
        int chunk;
        cudaStream_t stream;
    };
    // A block handed out: its rounded size and its chunk.
    struct Out {
        size_t size;
        int chunk;
    };
    std::vector<Chunk> chunks_;
    std::multimap<size_t, Block> free_;          // the free blocks, by size
    std::unordered_map<char*, Out> out_;         // the blocks handed out, by start
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
