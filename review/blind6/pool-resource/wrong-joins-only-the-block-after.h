// kind: wrong
// mistake: deallocate joins the freed block with a free neighbour after it, never with one before it.
// why it is wrong: blocks freed in ascending order join up (each joins the free block after it only when freed after it), but a block freed after its lower neighbour stays apart from it: four 4 MiB blocks given back out of order leave 16 MiB free in two or more pieces, and the 16 MiB request takes a new chunk; nothing is misused, every sum is right, only the chunk count grows.
// source: SynestiaOS/SynestiaOS#3 (heap blocks not merged when the neighbour's address is smaller than the freed block's), evmar/theseus#26 (a free-list insertion that prevented coalescing with the preceding neighbour: allocations failed with enough contiguous memory free)
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
        for (const auto& c : chunks_) upstream_.deallocate_sync(c.first, c.second);
        for (const auto& e : events_) cudaEventDestroy(e.second);
    }

    // allocate hands out a block of at least `bytes` for work on
    // `stream`, starting on a multiple of 256 bytes: the best fit among
    // the free blocks, those `stream` freed itself first; when none fits,
    // from a new chunk. The host never waits here.
    void* allocate(mr::stream_ref stream, size_t bytes, size_t alignment = mr::default_alignment) {
        mr::check_alignment(alignment);   // at most 256: every block starts 256-aligned
        const cudaStream_t s = stream.get();
        const size_t need = round(bytes == 0 ? 1 : bytes);
        auto it = best_fit(s, need, true);
        if (it == blocks_.end()) {
            it = best_fit(s, need, false);
            if (it != blocks_.end()) {
                // As RMM does: wait once for the stream that freed it, and
                // take that stream's whole free list into this one's order.
                const cudaStream_t donor = it->second.stream;
                CHECK(cudaStreamWaitEvent(s, event_of(donor), 0));
                for (auto& b : blocks_)
                    if (b.second.free && b.second.stream == donor) b.second.stream = s;
                // s's event must now cover the donor's frees as well
                CHECK(cudaEventRecord(event_of(s), s));
                join_all();
                it = best_fit(s, need, true);
            }
        }
        if (it == blocks_.end()) it = grow(s, need);
        Block& b = it->second;
        if (b.size > need) blocks_[it->first + need] = Block{b.size - need, true, false, b.stream};
        b.size = need;
        b.free = false;
        return it->first;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        auto it = blocks_.find(static_cast<char*>(p));
        if (it == blocks_.end() || it->second.free) return;
        const cudaStream_t s = stream.get();
        CHECK(cudaEventRecord(event_of(s), s));
        it->second.free = true;
        it->second.stream = s;
        auto next = std::next(it);
        if (next != blocks_.end() && joinable(it, next)) {
            it->second.size += next->second.size;
            blocks_.erase(next);
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

    // Every block of every chunk, free or handed out, by address: a free
    // block remembers the stream in whose order it became free; a head
    // block starts a chunk and is never joined with the block before it.
    struct Block {
        size_t size;
        bool free;
        bool head;
        cudaStream_t stream;
    };
    std::map<char*, Block> blocks_;
    std::vector<std::pair<char*, size_t>> chunks_;  // as the upstream gave them

    static size_t round(size_t n) { return (n + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment; }

    using iter = std::map<char*, Block>::iterator;

    // best_fit is the smallest free block of at least need bytes freed on
    // s (own) or on another stream (!own).
    iter best_fit(cudaStream_t s, size_t need, bool own) {
        iter best = blocks_.end();
        for (iter it = blocks_.begin(); it != blocks_.end(); ++it) {
            const Block& b = it->second;
            if (!b.free || b.size < need || (b.stream == s) != own) continue;
            if (best == blocks_.end() || b.size < best->second.size) best = it;
        }
        return best;
    }

    // joinable: a and the block right after it are both free in one
    // stream's order, touch, and lie in one chunk.
    bool joinable(iter a, iter b) const {
        return a->second.free && b->second.free && a->second.stream == b->second.stream && !b->second.head &&
               a->first + a->second.size == b->first;
    }

    void join_all() {
        iter it = blocks_.begin();
        while (it != blocks_.end()) {
            iter next = std::next(it);
            if (next != blocks_.end() && joinable(it, next)) {
                it->second.size += next->second.size;
                blocks_.erase(next);
            } else {
                it = next;
            }
        }
    }

    // grow takes a chunk (chunk_ bytes, or need when larger) from the
    // upstream on s, where it is ready; s's event is recorded after it so
    // that a stream that later waits for s also waits for the chunk.
    iter grow(cudaStream_t s, size_t need) {
        const size_t bytes = std::max(chunk_, need);
        char* p = static_cast<char*>(upstream_.allocate(mr::stream_ref{s}, bytes));
        chunks_.push_back({p, bytes});
        CHECK(cudaEventRecord(event_of(s), s));
        return blocks_.emplace(p, Block{round(bytes), true, true, s}).first;
    }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
