// kind: wrong (default output: from phase 1 on, the block of 4 MiB - 100 bytes goes back as 4 MiB - 100 bytes: its last 100 bytes (and its join with the next block) are lost, the block is too small for the next 4 MiB request, and the pool asks its upstream for more chunks than it needs)
// mistake: deallocate takes the freed block's size from the caller's bytes argument instead of the size the pool recorded when it cut the block (rounded up to 256)
// why it is wrong: the pool handed out need = bytes rounded up to 256; the caller's count is smaller, so the free block ends short of its neighbour and is never joined again
// source: own
// A pool resource over any upstream resource: the file to complete.
#pragma once
#include <algorithm>
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
        // TODO 2: pick a block, or grow; order `stream` after the work
        // that freed it; keep what the block does not need free.
        const cudaStream_t s = stream.get();
        const size_t need = bytes == 0 ? mr::default_alignment
                                        : (bytes + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment;
        // One pass in address order: the best fit among s's own free
        // blocks, and the best among the other streams' (a strictly
        // smaller one replaces it, so ties go to the lower address).
        auto own = free_.end(), other = free_.end();
        for (auto it = free_.begin(); it != free_.end(); ++it) {
            if (it->second.size < need) continue;
            auto& best = it->second.tag == s ? own : other;
            if (best == free_.end() || it->second.size < best->second.size) best = it;
        }
        auto pick = own != free_.end() ? own : other;
        if (pick == free_.end()) {
            // Nothing fits: a new chunk, ready in s's order; s's event is
            // recorded after it, so a stream that takes the rest later
            // waits for the upstream's work on it.
            const size_t bytesOfChunk = std::max(chunk_, need);
            char* c = static_cast<char*>(upstream_.allocate(stream, bytesOfChunk));
            if (c == nullptr) return nullptr;
            chunks_.push_back({c, bytesOfChunk});
            CHECK(cudaEventRecord(event_of(s), s));
            pick = free_.emplace(c, Free{bytesOfChunk, chunks_.size() - 1, s}).first;
        } else if (pick->second.tag != s) {
            CHECK(cudaStreamWaitEvent(s, event_of(pick->second.tag), 0));
        }
        char* p = pick->first;
        const Free block = pick->second;
        free_.erase(pick);
        if (block.size > need) free_[p + need] = Free{block.size - need, block.chunk, block.tag};
        used_[p] = Used{need, block.chunk};
        return p;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t bytes, size_t = mr::default_alignment) noexcept {
        // TODO 3: find p, mark when it is free, and join it with its
        // neighbours.
        char* at = static_cast<char*>(p);
        auto u = used_.find(at);
        if (u == used_.end()) return;
        const cudaStream_t s = stream.get();
        Free block{bytes, u->second.chunk, s};
        used_.erase(u);
        CHECK(cudaEventRecord(event_of(s), s));
        // The next block, if it starts where this one ends and is free in
        // the same stream's order, inside the same chunk.
        auto next = free_.find(at + block.size);
        if (next != free_.end() && next->second.chunk == block.chunk && next->second.tag == s) {
            block.size += next->second.size;
            free_.erase(next);
        }
        // The block before: the last free block below this one.
        auto prev = free_.lower_bound(at);
        if (prev != free_.begin()) {
            --prev;
            if (prev->first + prev->second.size == at && prev->second.chunk == block.chunk && prev->second.tag == s) {
                prev->second.size += block.size;
                return;
            }
        }
        free_[at] = block;
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
    // A free block: its size, its chunk, and the stream in whose order it
    // is free (its tag).
    struct Free {
        size_t size;
        size_t chunk;
        cudaStream_t tag;
    };
    // A block handed out: its size (rounded to 256) and its chunk.
    struct Used {
        size_t size;
        size_t chunk;
    };
    // The chunks as the upstream gave them (start, bytes asked for).
    std::vector<std::pair<char*, size_t>> chunks_;
    // The free blocks by address, and the blocks handed out by address:
    // two separate maps, so a neighbour is found by an exact key (the
    // next) or by the map's order (the one before).
    std::map<char*, Free> free_;
    std::map<char*, Used> used_;
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
