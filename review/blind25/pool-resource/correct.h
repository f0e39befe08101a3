// kind: correct
// mistake: none. Design: the free blocks kept PER CHUNK: a std::vector of chunks (base, size, the stream that asked for it) each with its OWN offset-ordered std::map of free blocks (size, the stream in whose order it is free), so a join looks only in the block's chunk map (next block at its end, previous by one step back, joined only when free in the same stream's order); the blocks handed out in a std::unordered_map (chunk index, offset, rounded size); allocate walks every chunk's map once keeping two best fits (the asker's own, the others'), takes its own, else the others' behind ONE wait on that block's stream's event, the rest left in the map under the same stream, else asks the upstream for max(chunk, rounded request) on the asker's stream and records the asker's event after it; deallocate records the freeing stream's event first; the destructor gives each chunk back on the stream that asked for it, with the size asked, then destroys the events
// why it is wrong: n/a (a correct file)
// source: own
// A pool resource over any upstream resource: the file to complete.
#pragma once
#include <algorithm>
#include <cstdint>
#include <iterator>
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
        // TODO 1: give back what the pool took and made.
        for (const Chunk& ch : chunks_) upstream_.deallocate(mr::stream_ref{ch.asker}, ch.base, ch.bytes);
        chunks_.clear();
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
        // TODO 2: pick a block, or grow; order `stream` after the work
        // that freed it; keep what the block does not need free.
        const cudaStream_t s = stream.get();
        const size_t n = bytes == 0 ? 256 : (bytes + 255) / 256 * 256;
        // The best fit among the asker's own free blocks, and among the
        // other streams'; every chunk's free map is looked at.
        Pick own, other;
        for (size_t c = 0; c < chunks_.size(); c++)
            for (const auto& f : chunks_[c].free) {
                if (f.second.bytes < n) continue;
                Pick& p = f.second.stream == s ? own : other;
                if (f.second.bytes < p.bytes) p = Pick{c, f.first, f.second.bytes};
            }
        const Pick pick = own.chunk != SIZE_MAX ? own : other;
        if (pick.chunk != SIZE_MAX) {
            Chunk& ch = chunks_[pick.chunk];
            auto it = ch.free.find(pick.off);
            const Free f = it->second;
            // Free only in f.stream's order: the asker follows that
            // stream's latest record, which comes after the block's free.
            if (f.stream != s) CHECK(cudaStreamWaitEvent(s, event_of(f.stream), 0));
            ch.free.erase(it);
            // The rest stays free in the order it was free in.
            if (f.bytes > n) ch.free.emplace(pick.off + n, Free{f.bytes - n, f.stream});
            out_[ch.base + pick.off] = Out{pick.chunk, pick.off, n};
            return ch.base + pick.off;
        }
        // Nothing fits: a chunk of its own, ready in the asker's order.
        const size_t size = std::max(chunk_, n);
        char* base = static_cast<char*>(upstream_.allocate(stream, size));
        CHECK(cudaEventRecord(event_of(s), s));
        chunks_.push_back(Chunk{base, size, s, {}});
        if (size > n) chunks_.back().free.emplace(n, Free{size - n, s});
        out_[base] = Out{chunks_.size() - 1, 0, n};
        return base;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        // TODO 3: find p, mark when it is free, and join it with its
        // neighbours.
        auto found = out_.find(p);
        if (found == out_.end()) return;
        const Out o = found->second;
        out_.erase(found);
        const cudaStream_t s = stream.get();
        CHECK(cudaEventRecord(event_of(s), s));
        std::map<size_t, Free>& free = chunks_[o.chunk].free;
        size_t off = o.off, size = o.bytes;
        // The block after it, when it is free in the same stream's order.
        auto next = free.find(off + size);
        if (next != free.end() && next->second.stream == s) {
            size += next->second.bytes;
            free.erase(next);
        }
        // The block before it, likewise: the joined block keeps its start.
        auto after = free.lower_bound(off);
        if (after != free.begin()) {
            auto prev = std::prev(after);
            if (prev->first + prev->second.bytes == off && prev->second.stream == s) {
                prev->second.bytes += size;
                return;
            }
        }
        free.emplace(off, Free{size, s});
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
    // A free block: its size and the stream in whose order it is free.
    struct Free {
        size_t bytes;
        cudaStream_t stream;
    };
    // A chunk from the upstream: where, how large, the stream that asked
    // for it, and ITS OWN free blocks by offset (so joins never leave it).
    struct Chunk {
        char* base;
        size_t bytes;
        cudaStream_t asker;
        std::map<size_t, Free> free;
    };
    // A block handed out: its chunk, its offset there and the size cut.
    struct Out {
        size_t chunk, off, bytes;
    };
    struct Pick {
        size_t chunk = SIZE_MAX, off = 0, bytes = SIZE_MAX;
    };
    std::vector<Chunk> chunks_;
    std::unordered_map<void*, Out> out_;
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
