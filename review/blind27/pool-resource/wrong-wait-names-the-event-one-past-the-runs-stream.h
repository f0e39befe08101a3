// kind: wrong
// mistake: allocate, taking another stream's run, waits for events_[take.tag] where the run's stream's event is events_[take.tag - 1] (the tag is the place plus one)
// why it is wrong: default output, or a race: the wait names the stream after the one that freed the run: with two streams, the second stream taking the first's run waits for its own event (a wait for nothing: phase 1's first round and phase 3's take run unordered after the first stream's work, sums wrong by timing), and the first stream taking the second's run (phase 2's fourth block) reads past the end of events_ and waits for whatever lies there: an error that stops the program, or no order at all
// source: own
// A pool resource over any upstream resource: the file to complete.
#pragma once
#include <algorithm>
#include <cstdint>
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
        // TODO 1: give back what the pool took and made.
        for (Chunk& c : chunks_) upstream_.deallocate(mr::stream_ref{c.asker}, c.base, c.bytes);
        chunks_.clear();
        handed_.clear();
        for (auto& e : events_) CHECK(cudaEventDestroy(e.second));
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
        const uint16_t mine = tag_of(s);
        const size_t need = (std::max<size_t>(bytes, 1) + kUnit - 1) / kUnit;
        // Every run of units free in one stream's order, chunk by chunk:
        // the shortest that holds the request among the asker's own, and
        // among the others'.
        Pick own, other;
        for (size_t ci = 0; ci < chunks_.size(); ci++) {
            const std::vector<uint16_t>& t = chunks_[ci].tag;
            size_t u = 0;
            while (u < t.size()) {
                if (t[u] == kInUse) {
                    u++;
                    continue;
                }
                size_t end = u;
                while (end < t.size() && t[end] == t[u]) end++;
                const size_t len = end - u;
                Pick& best = t[u] == mine ? own : other;
                if (len >= need && (best.chunk < 0 || len < best.len)) best = Pick{(int)ci, u, len, t[u]};
                u = end;
            }
        }
        Pick take = own.chunk >= 0 ? own : other;
        if (take.chunk >= 0 && take.tag != mine) CHECK(cudaStreamWaitEvent(s, events_[take.tag].second, 0));
        if (take.chunk < 0) {
            // No free run holds it: a new chunk, ready in the asker's order;
            // its rest is free in that order too, after the event.
            const size_t units = std::max(chunk_, need * kUnit) / kUnit;
            Chunk c;
            c.bytes = std::max(chunk_, need * kUnit);
            c.base = static_cast<char*>(upstream_.allocate(stream, c.bytes));
            c.asker = s;
            c.tag.assign(units, mine);
            chunks_.push_back(std::move(c));
            CHECK(cudaEventRecord(events_[mine - 1].second, s));
            take = Pick{(int)chunks_.size() - 1, 0, units, mine};
        }
        std::vector<uint16_t>& t = chunks_[take.chunk].tag;
        std::fill(t.begin() + take.at, t.begin() + take.at + need, kInUse);
        char* p = chunks_[take.chunk].base + take.at * kUnit;
        handed_[p] = Out{take.chunk, take.at, need};
        return p;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        // TODO 3: find p, mark when it is free, and join it with its
        // neighbours.
        // The units take the freeing stream's tag: free neighbours of the
        // same tag make one run with them, with no join to do.
        auto it = handed_.find(static_cast<char*>(p));
        if (it == handed_.end()) return;
        const cudaStream_t s = stream.get();
        const uint16_t mine = tag_of(s);
        CHECK(cudaEventRecord(events_[mine - 1].second, s));
        std::vector<uint16_t>& t = chunks_[it->second.chunk].tag;
        std::fill(t.begin() + it->second.at, t.begin() + it->second.at + it->second.units, mine);
        handed_.erase(it);
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
    // Each chunk is a row of 256-byte units, and each unit carries a tag:
    // kInUse while handed out, else the number of the stream in whose
    // order it is free (its place in events_, plus one). A free block is
    // a run of units with one tag, so blocks freed side by side in one
    // stream's order are one block, and blocks of two streams stay apart.
    static constexpr size_t kUnit = mr::default_alignment;
    static constexpr uint16_t kInUse = 0;
    struct Chunk {
        char* base = nullptr;
        size_t bytes = 0;
        cudaStream_t asker = nullptr;
        std::vector<uint16_t> tag;
    };
    struct Out {
        int chunk;
        size_t at, units;
    };
    struct Pick {
        int chunk = -1;
        size_t at = 0, len = 0;
        uint16_t tag = kInUse;
    };
    std::vector<Chunk> chunks_;
    std::unordered_map<char*, Out> handed_;

    // tag_of is stream s's tag: its event's place in events_, plus one.
    uint16_t tag_of(cudaStream_t s) {
        event_of(s);
        for (size_t i = 0; i < events_.size(); i++)
            if (events_[i].first == s) return (uint16_t)(i + 1);
        return kInUse;
    }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
