// kind: race (a missing event: the rest of a new chunk has none)
// mistake: when the pool grows, the rest of the new chunk is listed as free on s with no event, so a taker on another stream does not wait; the student reasoned that memory nobody has used yet needs no ordering.
// why it is wrong: the upstream zeroes the whole chunk in the order of the stream that asked for it (pool_resource.cu: "zeroes each chunk on the stream that asked for it"); the second stream of phase 1 takes the rest of the first stream's chunk at once, and its fill can land before the zeroing, which then wipes it.
// source: NVIDIA-BioNeMo/nvMolKit#55 ("allocated on the default stream, meaning that very infrequently it was possible to access them before allocation completed")
// A pool resource over any upstream resource: the file to complete.
#pragma once
#include <algorithm>
#include <iterator>
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
        for (auto& b : blocks_)
            if (b.second.ready != nullptr) cudaEventDestroy(b.second.ready);
        blocks_.clear();
        for (cudaEvent_t e : spare_) cudaEventDestroy(e);
        spare_.clear();
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
        // The best fit, the stream's own free blocks before the others'.
        auto pick = blocks_.end();
        bool own = false;
        for (auto it = blocks_.begin(); it != blocks_.end(); ++it) {
            const Block& b = it->second;
            if (!b.free || b.size < n) continue;
            const bool mine = b.stream == s;
            if (pick == blocks_.end() || (mine && !own) || (mine == own && b.size < pick->second.size)) {
                pick = it;
                own = mine;
            }
        }
        if (pick == blocks_.end()) {
            // Grow: a chunk of its own for a large request. The upstream
            // zeroes it in s's order; the rest of it, left free, carries an
            // event recorded after that, for a taker on another stream.
            const size_t size = round_up(std::max(chunk_, n));
            char* c = static_cast<char*>(upstream_.allocate(stream, size));
            chunks_.push_back({c, size});
            Block whole;
            whole.size = size;
            whole.head = true;
            whole.free = true;
            whole.stream = s;
            pick = blocks_.emplace(c, whole).first;
        } else if (pick->second.stream != s && pick->second.ready != nullptr) {
            // Freed on another stream: s comes after the work before that free.
            CHECK(cudaStreamWaitEvent(s, pick->second.ready, 0));
        }
        char* p = pick->first;
        Block& b = pick->second;
        if (b.size > n) {
            // The rest stays free in the order it was free in: the same
            // stream, the same event.
            Block rest;
            rest.size = b.size - n;
            rest.free = true;
            rest.stream = b.stream;
            rest.ready = b.ready;
            blocks_.emplace(p + n, rest);
            b.size = n;
        } else {
            drop_event(b.ready);
        }
        b.ready = nullptr;
        b.free = false;
        b.stream = s;
        return p;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        auto it = blocks_.find(static_cast<char*>(p));
        if (it == blocks_.end() || it->second.free) return;   // not a block handed out
        const cudaStream_t s = stream.get();
        cudaEvent_t e = take_event();
        CHECK(cudaEventRecord(e, s));   // free once s's work so far is done
        Block& b = it->second;
        b.free = true;
        b.stream = s;
        b.ready = e;
        // Join the next block into this one: free, freed on s, same chunk.
        auto next = std::next(it);
        if (next != blocks_.end() && next->second.free && !next->second.head && next->second.stream == s &&
            it->first + b.size == next->first) {
            b.size += next->second.size;
            drop_event(next->second.ready);
            blocks_.erase(next);
        }
        // Join this block into the previous one, unless it starts a chunk.
        if (!b.head && it != blocks_.begin()) {
            auto prev = std::prev(it);
            if (prev->second.free && prev->second.stream == s && prev->first + prev->second.size == it->first) {
                prev->second.size += b.size;
                drop_event(prev->second.ready);
                prev->second.ready = e;   // recorded last on s: covers both parts
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

    // Every block of every chunk, by address: its size (a multiple of
    // 256), whether it starts a chunk, whether it is free and, for a free
    // block, the stream that freed it and an event of its own recorded
    // there at the free (nullptr when no other stream needs to wait).
    struct Block {
        size_t size = 0;
        bool head = false;
        bool free = false;
        cudaStream_t stream = nullptr;
        cudaEvent_t ready = nullptr;
    };
    std::map<char*, Block> blocks_;
    std::vector<std::pair<char*, size_t>> chunks_;   // as the upstream gave them
    std::vector<cudaEvent_t> spare_;                 // events no free block holds

    static size_t round_up(size_t n) { return (n + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment; }

    // An event to record: a spare one, or a new one. A spare event may be
    // recorded again: a wait already queued on it keeps the record it saw.
    cudaEvent_t take_event() {
        if (!spare_.empty()) {
            cudaEvent_t e = spare_.back();
            spare_.pop_back();
            return e;
        }
        cudaEvent_t e;
        CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        return e;
    }
    void drop_event(cudaEvent_t e) {
        if (e != nullptr) spare_.push_back(e);
    }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
