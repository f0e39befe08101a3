// kind: wrong (race with the upstream's zeroing: a stream takes the never-used
//     rest of another stream's new chunk without waiting for it)
// mistake: the rest of a new chunk is marked fresh, and any stream may take a
//     fresh segment without a wait, on the reasoning that no work has run
//     on memory no block was ever cut from.
// why it is wrong: the chunk is ready only in the asking stream's order: the
//     upstream zeroes it there (a stream-ordered upstream's
//     memory is the same); a second stream that takes the rest at
//     once writes it while the zeroing may still run: phase 1
//     does this at its first round, and the hidden phase 5 again
//     (A takes the rest of C's chunk).
// source: rapidsai/rmm#510 (its README: memory from allocate(bytes, stream_a)
//     is valid on stream_a; using it on stream_b is undefined unless the
//     two are synchronised first), the lesson's pitfall 1 (a kernel on B
//     must come after an event recorded on A)
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
        for (const Chunk& c : chunks_) upstream_.deallocate_sync(c.base, c.size);
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
        const size_t need = round(bytes == 0 ? 1 : bytes);
        const cudaStream_t s = stream.get();
        // The best fit among the blocks s freed itself (no wait), then
        // among the others' (a wait for the stream that freed it).
        size_t bc = SIZE_MAX, bi = 0, best = SIZE_MAX;
        for (int pass = 0; pass < 2 && bc == SIZE_MAX; pass++)
            for (size_t c = 0; c < chunks_.size(); c++)
                for (size_t i = 0; i < chunks_[c].segs.size(); i++) {
                    const Seg& g = chunks_[c].segs[i];
                    const bool mine = g.stream == s || g.fresh;
                    if (!g.free || g.size < need || mine != (pass == 0) || g.size >= best) continue;
                    bc = c, bi = i, best = g.size;
                }
        if (bc == SIZE_MAX) {
            // Nothing fits: a chunk of its own, ready in s's order. Its rest
            // stays free in s's order too: s's event is recorded after the
            // upstream's work on it, for a stream that takes the rest.
            const size_t size = std::max(chunk_, need);
            char* base = static_cast<char*>(upstream_.allocate(stream, size));
            chunks_.push_back({base, size, {{0, size, true, s, true}}});
            CHECK(cudaEventRecord(event_of(s), s));
            bc = chunks_.size() - 1;
            bi = 0;
        } else if (chunks_[bc].segs[bi].stream != s && !chunks_[bc].segs[bi].fresh) {
            CHECK(cudaStreamWaitEvent(s, event_of(chunks_[bc].segs[bi].stream), 0));
        }
        std::vector<Seg>& segs = chunks_[bc].segs;
        if (segs[bi].size > need) {
            // The rest keeps the stream that freed it: another stream that
            // takes it must wait for that one, not for this taker.
            const Seg rest{segs[bi].off + need, segs[bi].size - need, true, segs[bi].stream, segs[bi].fresh};
            segs[bi].size = need;
            segs.insert(segs.begin() + bi + 1, rest);
        }
        segs[bi].free = false;
        segs[bi].fresh = false;
        segs[bi].stream = s;
        void* p = chunks_[bc].base + segs[bi].off;
        out_[p] = bc;
        return p;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        const auto it = out_.find(p);
        if (it == out_.end()) return;
        Chunk& ch = chunks_[it->second];
        out_.erase(it);
        const size_t off = static_cast<size_t>(static_cast<char*>(p) - ch.base);
        std::vector<Seg>& segs = ch.segs;
        size_t i = 0;
        while (i < segs.size() && (segs[i].off != off || segs[i].free)) i++;
        if (i == segs.size()) return;
        const cudaStream_t s = stream.get();
        segs[i].free = true;
        segs[i].stream = s;
        CHECK(cudaEventRecord(event_of(s), s));
        // Neighbours in the same chunk that are free in the same stream's
        // order join it: after, then before.
        if (i + 1 < segs.size() && segs[i + 1].free && segs[i + 1].stream == s) {
            segs[i].size += segs[i + 1].size;
            segs[i].fresh = false;
            segs.erase(segs.begin() + i + 1);
        }
        if (i > 0 && segs[i - 1].free && segs[i - 1].stream == s) {
            segs[i - 1].size += segs[i].size;
            segs[i - 1].fresh = false;
            segs.erase(segs.begin() + i);
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

    // Each chunk is a list of segments in address order (boundary tags):
    // a segment is free or handed out, and a free one is free in the order
    // of `stream` (the stream that freed it, or that asked for its chunk).
    // Joins happen only inside a chunk's list, so two chunks side by side
    // never become one block.
    struct Seg {
        size_t off, size;
        bool free;
        cudaStream_t stream;
        bool fresh;   // never handed out since its chunk came: no work on it
    };
    struct Chunk {
        char* base;
        size_t size;
        std::vector<Seg> segs;
    };
    std::vector<Chunk> chunks_;
    std::unordered_map<void*, size_t> out_;   // a handed-out block's chunk

    static size_t round(size_t n) { return (n + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment; }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
