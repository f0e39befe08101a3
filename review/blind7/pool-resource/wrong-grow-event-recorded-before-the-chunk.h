// kind: wrong (order of calls between streams: a race the sums rarely show)
// mistake: when the pool grows, it records the asking stream's event before asking the upstream for the chunk, not after, so the event does not cover the chunk's zeroing on that stream
// why it is wrong: the chunk's rest is listed as free on the asking stream, and another stream that takes it waits for that stream's event: recorded before the upstream's memsets, the event marks nothing of them, and the taker's kernels may write the block while the memsets still run (phase 1's first round, where stream 1 takes the rest of stream 0's first chunk; phase 5, where A takes the rest of C's). The memsets are short and usually done first, so the sums come out right
// source: rapidsai/rmm#2489 and rapidsai/rmm#2490 (a stream's event left at a position that "predates" the work it had to cover, so a later taker's wait was stale)
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
        for (const auto& c : chunks_) upstream_.deallocate_sync(c.first, c.second);
        for (const auto& e : events_) CHECK(cudaEventDestroy(e.second));
    }

    // allocate hands out a block of at least `bytes` for work on
    // `stream`, starting on a multiple of 256 bytes: the best fit among
    // the free blocks, those `stream` freed itself first; when none fits,
    // from a new chunk. The host never waits here.
    void* allocate(mr::stream_ref stream, size_t bytes, size_t alignment = mr::default_alignment) {
        mr::check_alignment(alignment);   // at most 256: every block starts 256-aligned
        const size_t size = bytes == 0 ? mr::default_alignment : round(bytes);
        cudaStream_t s = stream.get();
        // 1. The best fit among the blocks this stream freed: its own
        // order already follows their frees.
        FreeList& own = free_[s];
        FreeList::iterator it = best(own, size);
        if (it != own.end()) return carve(own, it, size);
        // 2. The best fit among the other streams' blocks: this stream
        // waits for the freeing stream's event (its latest record comes
        // after every free on that stream), and the block's rest stays
        // in the freeing stream's list, still free in that stream's order.
        FreeList* from = nullptr;
        cudaStream_t donor = nullptr;
        for (auto& l : free_) {
            if (l.first == s) continue;
            FreeList::iterator c = best(l.second, size);
            if (c != l.second.end() && (from == nullptr || c->second.size < it->second.size)) {
                from = &l.second;
                donor = l.first;
                it = c;
            }
        }
        if (from != nullptr) {
            CHECK(cudaStreamWaitEvent(s, event_of(donor), 0));
            return carve(*from, it, size);
        }
        // 3. A new chunk, asked for on this stream: ready in its order.
        // Its rest is free in this stream's list, so the stream's event is
        // recorded after the chunk's upstream work, for any other stream
        // that takes the rest.
        const size_t whole = std::max(chunk_, size);
        CHECK(cudaEventRecord(event_of(s), s));
        char* p = static_cast<char*>(upstream_.allocate(stream, whole));
        const int id = (int)chunks_.size();
        chunks_.push_back({p, whole});
        FreeList& mine = free_[s];
        it = mine.emplace(p, Free{whole, id}).first;
        return carve(mine, it, size);
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        auto u = used_.find(static_cast<char*>(p));
        if (u == used_.end()) return;   // not a block this pool handed out
        Free b = u->second;
        char* at = u->first;
        used_.erase(u);
        cudaStream_t s = stream.get();
        CHECK(cudaEventRecord(event_of(s), s));
        // Join with the free neighbours of the same chunk in this stream's
        // list only: one event, this stream's, stands for all of them.
        FreeList& list = free_[s];
        FreeList::iterator next = list.lower_bound(at);
        if (next != list.end() && next->first == at + b.size && next->second.chunk == b.chunk) {
            b.size += next->second.size;
            next = list.erase(next);
        }
        if (next != list.begin()) {
            FreeList::iterator prev = std::prev(next);
            if (prev->first + prev->second.size == at && prev->second.chunk == b.chunk) {
                prev->second.size += b.size;
                return;
            }
        }
        list.emplace(at, b);
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

    // A block: its size (a multiple of 256) and the chunk it lies in.
    struct Free {
        size_t size;
        int chunk;
    };
    // Each stream's free blocks by address, as RMM keeps them: blocks of
    // one list are free in that stream's order, and only they may join.
    using FreeList = std::map<char*, Free>;
    std::map<cudaStream_t, FreeList> free_;
    std::unordered_map<char*, Free> used_;          // handed out, by address
    std::vector<std::pair<char*, size_t>> chunks_;  // from the upstream, in order

    static size_t round(size_t n) {
        return (n + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment;
    }
    // best is the smallest block of list that holds size (the lowest
    // address among equals), or list.end().
    static FreeList::iterator best(FreeList& list, size_t size) {
        FreeList::iterator b = list.end();
        for (FreeList::iterator i = list.begin(); i != list.end(); ++i)
            if (i->second.size >= size && (b == list.end() || i->second.size < b->second.size)) b = i;
        return b;
    }
    // carve hands out the first size bytes of free block it of list; the
    // rest stays in list.
    char* carve(FreeList& list, FreeList::iterator it, size_t size) {
        char* p = it->first;
        Free b = it->second;
        list.erase(it);
        if (b.size > size) list.emplace(p + size, Free{b.size - size, b.chunk});
        used_[p] = Free{size, b.chunk};
        return p;
    }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
