// kind: race on a branch the defaults never take (a stale event after a list moves between streams)
// mistake: when allocate takes another stream's block, it waits for that stream's event and, as RMM's pool does, moves that stream's whole free list into its own (each block tagged with s), but does not record s's event again after the wait.
// why it is wrong: a third stream that later takes one of the moved blocks waits on s's event, whose last record (if any) comes before s's wait for the donor: it can reuse memory the donor's kernels still use. The course's phases never take a moved block on a third stream (phase 5's moved lists hold only the block taken), so every sum is right.
// source: https://github.com/rapidsai/rmm/issues/2489 (merge_lists drops the dependency on the donor stream's in-flight work; fixed by https://github.com/rapidsai/rmm/pull/2490)
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
        for (const auto& c : chunks_) upstream_.deallocate_sync(c.first, c.second);
        chunks_.clear();
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
        const size_t n = round_up(bytes == 0 ? 1 : bytes);
        size_t pick = pick_block(s, n, true);
        if (pick == npos) pick = pick_block(s, n, false);
        Block b;
        if (pick != npos) {
            b = free_[pick];
            free_.erase(free_.begin() + pick);
            if (b.stream != s) {   // freed on another stream: s waits for that work
                const cudaStream_t donor = b.stream;
                CHECK(cudaStreamWaitEvent(s, event_of(donor), 0));
                event_of(s);   // s's event exists, for the blocks it now lists
                // The donor's other free blocks are behind this wait too: s's now.
                for (auto& f : free_)
                    if (f.stream == donor) f.stream = s;
                b.stream = s;
            }
        } else {
            // Grow: a chunk of its own for a large request. The upstream's
            // memory is ready in s's order; s's event says when, for a
            // stream that later takes the rest of the chunk.
            const size_t size = std::max(chunk_, n);
            char* p = static_cast<char*>(upstream_.allocate(stream, size));
            chunks_.push_back({p, size});
            CHECK(cudaEventRecord(event_of(s), s));
            b = Block{p, size, true, s};
        }
        if (b.size > n) free_.push_back(Block{b.p + n, b.size - n, false, b.stream});
        used_.push_back(Block{b.p, n, b.head, s});
        return b.p;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        const cudaStream_t s = stream.get();
        size_t i = 0;
        while (i < used_.size() && used_[i].p != p) i++;
        if (i == used_.size()) return;   // not ours
        Block b = used_[i];
        used_.erase(used_.begin() + i);
        // Free once s's work so far is done: s's event, recorded now.
        if (cudaEventRecord(event_of(s), s) != cudaSuccess) return;
        b.stream = s;
        // Join with free neighbours freed on the same stream, never across
        // the start of a chunk (b.head, or the next block's head).
        for (size_t k = 0; k < free_.size();) {
            Block& f = free_[k];
            if (f.stream == s && f.p + f.size == b.p && !b.head) {
                b = Block{f.p, f.size + b.size, f.head, s};
                free_.erase(free_.begin() + k);
                k = 0;
            } else if (f.stream == s && b.p + b.size == f.p && !f.head) {
                b.size += f.size;
                free_.erase(free_.begin() + k);
                k = 0;
            } else {
                k++;
            }
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

    // A block: where it starts, its size (a multiple of 256), whether it
    // starts a chunk, and the stream that freed it (free blocks) or took
    // it (blocks handed out).
    struct Block {
        char* p = nullptr;
        size_t size = 0;
        bool head = false;
        cudaStream_t stream = nullptr;
    };
    static constexpr size_t npos = ~size_t(0);
    std::vector<std::pair<char*, size_t>> chunks_;   // as the upstream gave them
    std::vector<Block> free_;
    std::vector<Block> used_;

    static size_t round_up(size_t n) { return (n + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment; }

    // pick_block is the best fit for n bytes among the free blocks freed
    // on s (own) or on other streams (!own), or npos.
    size_t pick_block(cudaStream_t s, size_t n, bool own) const {
        size_t best = npos;
        for (size_t i = 0; i < free_.size(); i++) {
            const Block& f = free_[i];
            if ((f.stream == s) != own || f.size < n) continue;
            if (best == npos || f.size < free_[best].size) best = i;
        }
        return best;
    }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
