// kind: wrong (shows only for a request larger than the chunk size: the
//   block runs past its chunk)
// mistake: a new chunk is always chunk bytes; a request larger than that is
//   handed the whole chunk.
// why it is wrong: the request gets a block smaller than it asked for, so
//   its work writes past the chunk's end into memory the pool does not own.
// source: own (the file's own 'or a request's own size when that is larger'
//   left out)
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
        for (const Chunk& c : chunks_) upstream_.deallocate(mr::stream_ref{c.stream}, c.base, c.bytes);
        for (const auto& e : events_) cudaEventDestroy(e.second);
    }

    // allocate hands out a block of at least `bytes` for work on
    // `stream`, starting on a multiple of 256 bytes: the best fit among
    // the free blocks, those `stream` freed itself first; when none fits,
    // from a new chunk. The host never waits here.
    void* allocate(mr::stream_ref stream, size_t bytes, size_t alignment = mr::default_alignment) {
        mr::check_alignment(alignment);   // at most 256: every block starts 256-aligned
        const cudaStream_t s = stream.get();
        const size_t need = round_up(bytes == 0 ? 1 : bytes);
        auto best = blocks_.end();
        bool own = false;
        for (auto it = blocks_.begin(); it != blocks_.end(); ++it) {
            const Block& b = it->second;
            if (!b.free || b.bytes < need) continue;
            const bool mine = b.stream == s;
            if (best == blocks_.end() || (mine && !own) || (mine == own && b.bytes < best->second.bytes)) {
                best = it;
                own = mine;
            }
        }
        if (best == blocks_.end()) {
            const size_t size = round_up(chunk_);
            char* base = static_cast<char*>(upstream_.allocate(stream, size));
            chunks_.push_back({base, size, s});
            best = blocks_.emplace(base, Block{size, chunks_.size() - 1, true, s}).first;
            // The chunk is ready in s's order: a later steal of its rest
            // waits for a record made after the upstream's allocate.
            CHECK(cudaEventRecord(event_of(s), s));
        } else if (!own) {
            CHECK(cudaStreamWaitEvent(s, event_of(best->second.stream), 0));
        }
        Block& b = best->second;
        if (b.bytes > need) {
            blocks_.emplace(best->first + need, Block{b.bytes - need, b.chunk, true, b.stream});
            b.bytes = need;
        }
        b.free = false;
        b.stream = s;
        return best->first;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        auto it = blocks_.find(static_cast<char*>(p));
        if (it == blocks_.end() || it->second.free) return;
        const cudaStream_t s = stream.get();
        it->second.free = true;
        it->second.stream = s;
        CHECK(cudaEventRecord(event_of(s), s));
        auto next = std::next(it);
        if (next != blocks_.end() && joinable(it, next)) {
            it->second.bytes += next->second.bytes;
            blocks_.erase(next);
        }
        if (it != blocks_.begin()) {
            auto prev = std::prev(it);
            if (joinable(prev, it)) {
                prev->second.bytes += it->second.bytes;
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

    // Every block of every chunk, free or handed out, by its address: a
    // block's neighbours are the map's, when they are of the same chunk.
    struct Block {
        size_t bytes;
        size_t chunk;          // index in chunks_
        bool free;
        cudaStream_t stream;   // for a free block: the stream it is free in
    };
    struct Chunk {
        char* base;
        size_t bytes;
        cudaStream_t stream;   // the stream that asked the upstream for it
    };
    std::map<char*, Block> blocks_;
    std::vector<Chunk> chunks_;

    static size_t round_up(size_t n) { return (n + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment; }

    // joinable says whether a and the block right after it may become one:
    // both free, of one chunk, touching, and free in one stream's order.
    static bool joinable(std::map<char*, Block>::iterator a, std::map<char*, Block>::iterator b) {
        const Block &x = a->second, &y = b->second;
        return x.free && y.free && x.chunk == y.chunk && a->first + x.bytes == b->first && x.stream == y.stream;
    }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
