// kind: a branch the defaults never take (a third stream)
// mistake: After waiting for the event of the stream that freed the chosen block, allocate re-tags the free blocks of every other stream as its own, not just those of the stream it waited for. With two streams, as in this program, 'every other stream' is exactly the one waited for, so every check passes; with a third stream, blocks that stream freed are then taken without any wait.
// why it is wrong: Day 76, 'A pool resource over an upstream': a block freed on A reaches B only after B waits for A's event; a wait for one stream orders nothing of another.
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
        for (const auto& c : chunks_) upstream_.deallocate_sync(c.first, c.second);
        chunks_.clear();
        blocks_.clear();
        for (const auto& e : events_) cudaEventDestroy(e.second);
        events_.clear();
    }

    // allocate hands out a block of at least `bytes` for work on
    // `stream`, starting on a multiple of 256 bytes: the best fit among
    // the free blocks, those `stream` freed itself first; when none fits,
    // from a new chunk. The host never waits here.
    void* allocate(mr::stream_ref stream, size_t bytes, size_t alignment = mr::default_alignment) {
        mr::check_alignment(alignment);   // at most 256: every block starts 256-aligned
        const cudaStream_t s = stream.get();
        const size_t need = std::max<size_t>(256, (bytes + 255) / 256 * 256);
        auto it = best_fit(need, s, true);
        if (it == blocks_.end()) {
            it = best_fit(need, s, false);
            if (it != blocks_.end()) {
                // Freed on another stream: s waits for that stream's frees
                // so far, and so may take any block it has freed up to now.
                const cudaStream_t from = it->second.stream;
                CHECK(cudaStreamWaitEvent(s, event_of(from), 0));
                for (auto& b : blocks_)
                    if (b.second.free) b.second.stream = s; // s has waited: every free block is its own now
            }
        }
        if (it == blocks_.end()) it = grow(s, need);
        Block& b = it->second;
        if (b.size > need) {
            // The rest stays free, in the same chunk, in s's order.
            blocks_[it->first + need] = Block{b.size - need, false, true, s};
            b.size = need;
        }
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
        // The next block, if it is of the same chunk and freed on s.
        auto next = std::next(it);
        if (next != blocks_.end() && joinable(it, next)) {
            it->second.size += next->second.size;
            blocks_.erase(next);
        }
        // The previous block, likewise.
        if (it != blocks_.begin()) {
            auto prev = std::prev(it);
            if (joinable(prev, it)) {
                prev->second.size += it->second.size;
                blocks_.erase(it);
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

    struct Block {
        size_t size;
        bool head;            // the first block of a chunk: never joined to the one before
        bool free;
        cudaStream_t stream;  // the stream in whose order it is free
    };
    using Blocks = std::map<char*, Block>;
    Blocks blocks_;                               // every block, by address
    std::vector<std::pair<char*, size_t>> chunks_; // what the upstream gave

    // best_fit is the smallest free block of at least need bytes, among
    // those freed on s (own) or on other streams (!own).
    Blocks::iterator best_fit(size_t need, cudaStream_t s, bool own) {
        auto best = blocks_.end();
        for (auto it = blocks_.begin(); it != blocks_.end(); ++it) {
            const Block& b = it->second;
            if (!b.free || b.size < need || (b.stream == s) != own) continue;
            if (best == blocks_.end() || b.size < best->second.size) best = it;
        }
        return best;
    }

    // grow takes a chunk from the upstream on s, as one free block.
    Blocks::iterator grow(cudaStream_t s, size_t need) {
        const size_t size = std::max(chunk_, need);
        char* p = static_cast<char*>(upstream_.allocate(s, size));
        chunks_.push_back({p, size});
        // s's event now stands after the chunk is ready in s's order: a
        // stream that later takes a piece of it waits for this.
        CHECK(cudaEventRecord(event_of(s), s));
        return blocks_.emplace(p, Block{size, true, true, s}).first;
    }

    // joinable says whether b may absorb the block right after it, a.
    static bool joinable(Blocks::iterator b, Blocks::iterator a) {
        return b->second.free && a->second.free && !a->second.head && b->second.stream == a->second.stream &&
               b->first + b->second.size == a->first;
    }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
