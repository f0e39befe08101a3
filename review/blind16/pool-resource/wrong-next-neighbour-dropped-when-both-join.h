// kind: wrong (default output, phase 2: the free next neighbour is taken off the list but its bytes are not added, so memory is lost at every join with it: '2. four 4 MiB blocks given back out of order, then 16 MiB: 2 chunk(s) taken' (1 wanted), and more chunks later)
// mistake: deallocate erases the free block after p from its chunk's map without adding its size to the block being freed
// why it is wrong: joining means the freed block grows by its neighbour; erasing the neighbour without growing loses its bytes for good, so free memory shrinks and the pool asks its upstream for chunks it should not need
// source: larcenists/larceny#221 (a freed block that joins the blocks on both sides: all three must become one), dmsc/emu2#122 (free blocks not joined in some free orders, a large request then fails)
// A pool resource over any upstream resource: the file to complete.
#pragma once
#include <algorithm>
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
        for (const Chunk& c : chunks_) upstream_.deallocate(mr::stream_ref{cudaStream_t{}}, c.base, c.bytes);
        chunks_.clear();
        out_.clear();
        for (const auto& e : events_) cudaEventDestroy(e.second);
        events_.clear();
    }

    // allocate hands out a block of at least `bytes` for work on
    // `stream`, starting on a multiple of 256 bytes: the best fit among
    // the free blocks, those `stream` freed itself first; when none fits,
    // from a new chunk. The host never waits here.
    void* allocate(mr::stream_ref stream, size_t bytes, size_t alignment = mr::default_alignment) {
        mr::check_alignment(alignment);   // at most 256: every block starts 256-aligned
        const size_t n = round256(bytes == 0 ? 1 : bytes);
        const cudaStream_t s = stream.get();
        // The best fit: among the blocks free in s's own order first, then
        // among the others'.
        int ownChunk = -1, otherChunk = -1;
        size_t ownOff = 0, otherOff = 0, ownBytes = 0, otherBytes = 0;
        for (size_t c = 0; c < chunks_.size(); c++)
            for (const auto& f : chunks_[c].free) {
                if (f.second.bytes < n) continue;
                if (f.second.tag == s) {
                    if (ownChunk < 0 || f.second.bytes < ownBytes) ownChunk = (int)c, ownOff = f.first, ownBytes = f.second.bytes;
                } else if (otherChunk < 0 || f.second.bytes < otherBytes) {
                    otherChunk = (int)c, otherOff = f.first, otherBytes = f.second.bytes;
                }
            }
        if (ownChunk >= 0) return cut(ownChunk, ownOff, n);
        if (otherChunk >= 0) {
            // Free in another stream's order: s waits for that stream's
            // latest record, which follows the block's free.
            const cudaStream_t tag = chunks_[otherChunk].free.at(otherOff).tag;
            CHECK(cudaStreamWaitEvent(s, event_of(tag), 0));
            return cut(otherChunk, otherOff, n);
        }
        // Nothing fits: a new chunk, of chunk_ bytes or the request's own.
        const size_t size = std::max(round256(chunk_), n);
        char* base = static_cast<char*>(upstream_.allocate(stream, size));
        chunks_.push_back(Chunk{base, size, {}});
        const int c = (int)chunks_.size() - 1;
        out_[base] = Out{c, n};
        if (size > n) {
            // The rest is ready in s's order, after the upstream's own work.
            chunks_[c].free[n] = Free{size - n, s};
            CHECK(cudaEventRecord(event_of(s), s));
        }
        return base;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        auto it = out_.find(p);
        if (it == out_.end()) return;
        const int c = it->second.chunk;
        const cudaStream_t s = stream.get();
        char* const base = chunks_[c].base;
        size_t off = static_cast<char*>(p) - base, size = it->second.bytes;
        out_.erase(it);
        // Free in s's order from here: the record follows the work so far.
        CHECK(cudaEventRecord(event_of(s), s));
        auto& fl = chunks_[c].free;
        // Joined only with neighbours free in the same stream's order: a
        // block made of two streams' frees would be free in neither's.
        auto next = fl.find(off + size);
        if (next != fl.end() && next->second.tag == s) {
            fl.erase(next);
        }
        auto after = fl.lower_bound(off);
        if (after != fl.begin()) {
            auto prev = std::prev(after);
            if (prev->first + prev->second.bytes == off && prev->second.tag == s) {
                prev->second.bytes += size;
                return;
            }
        }
        fl[off] = Free{size, s};
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

    // Design: the free blocks kept chunk by chunk, each chunk with an
    // offset-ordered map of its own (blocks of two chunks can never be
    // neighbours), each free block tagged with the stream in whose order
    // it is free; the blocks handed out in a hash map from their address
    // to their chunk and size.
    struct Free {
        size_t bytes;
        cudaStream_t tag;
    };
    struct Chunk {
        char* base;
        size_t bytes;
        std::map<size_t, Free> free;
    };
    struct Out {
        int chunk;
        size_t bytes;
    };
    std::vector<Chunk> chunks_;
    std::unordered_map<void*, Out> out_;

    static size_t round256(size_t n) { return (n + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment; }

    // cut hands out the first n bytes of chunk c's free block at off; its
    // rest stays free, in the same stream's order.
    void* cut(int c, size_t off, size_t n) {
        auto& fl = chunks_[c].free;
        const Free f = fl.at(off);
        fl.erase(off);
        if (f.bytes > n) fl[off + n] = Free{f.bytes - n, f.tag};
        char* p = chunks_[c].base + off;
        out_[p] = Out{c, n};
        return p;
    }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
