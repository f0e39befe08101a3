// kind: wrong
// mistake: when a stream takes part of another stream's free block, the rest it leaves is tagged with the taker ('the taker has waited for the block, so what is left is in its order now')
// why it is wrong: hidden runs (three streams), phases 5 and 7, and the record: the taker's wait orders only the taker; a third stream that takes the rest waits for the taker's event, whose latest record comes before that wait, not for the stream that freed the block: its kernels may write the rest while the freeing stream's work still uses it; the two-stream default run right
// source: own (the student file's phase 7: a pool that lists the rest as A's must record A's event again after A's wait)
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
        for (const Chunk& c : chunks_) upstream_.deallocate(mr::stream_ref{cudaStream_t{}}, c.start, c.bytes);
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
        const size_t n = rounded(bytes);
        auto pick = free_.end();
        for (int pass = 0; pass < 2 && pick == free_.end(); pass++)
            for (auto it = free_.begin(); it != free_.end(); ++it) {
                const Free& f = it->second;
                const bool own = f.after.size() == 1 && f.after[0] == s;
                if (f.bytes < n || (pass == 0 && !own)) continue;
                if (pick == free_.end() || f.bytes < pick->second.bytes) pick = it;
            }
        if (pick == free_.end()) pick = grow(s, n);
        char* p = pick->first;
        Free f = pick->second;
        free_.erase(pick);
        for (cudaStream_t o : f.after)
            if (o != s) CHECK(cudaStreamWaitEvent(s, event_of(o), 0));
        if (f.bytes > n) free_[p + n] = Free{f.bytes - n, f.chunk, {s}};
        out_[p] = Used{n, f.chunk};
        return p;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        auto u = out_.find(static_cast<char*>(p));
        if (u == out_.end()) return;   // not this pool's block: nothing to give back
        const cudaStream_t s = stream.get();
        Free f{u->second.bytes, u->second.chunk, {s}};
        out_.erase(u);
        CHECK(cudaEventRecord(event_of(s), s));
        auto it = free_.emplace(static_cast<char*>(p), f).first;
        // The next block, when free and of the same chunk, joins this one.
        auto next = std::next(it);
        if (next != free_.end() && next->second.chunk == it->second.chunk && it->first + it->second.bytes == next->first) {
            it->second.bytes += next->second.bytes;
            merge(it->second.after, next->second.after);
            free_.erase(next);
        }
        // And this one joins the previous.
        if (it != free_.begin()) {
            auto prev = std::prev(it);
            if (prev->second.chunk == it->second.chunk && prev->first + prev->second.bytes == it->first) {
                prev->second.bytes += it->second.bytes;
                merge(prev->second.after, it->second.after);
                free_.erase(it);
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

    struct Chunk {
        char* start;
        size_t bytes;
    };
    // A free block: its size, its chunk, and the streams whose work on it
    // a taker must wait for (their events' latest records come after it).
    struct Free {
        size_t bytes;
        size_t chunk;
        std::vector<cudaStream_t> after;
    };
    struct Used {
        size_t bytes;
        size_t chunk;
    };
    std::vector<Chunk> chunks_;
    std::map<char*, Free> free_;   // by address
    std::map<char*, Used> out_;    // handed out, by address

    static size_t rounded(size_t n) {
        const size_t a = mr::default_alignment;
        return n == 0 ? a : (n + a - 1) / a * a;
    }

    // merge adds to into every stream of from it does not hold yet.
    static void merge(std::vector<cudaStream_t>& into, const std::vector<cudaStream_t>& from) {
        for (cudaStream_t o : from)
            if (std::find(into.begin(), into.end(), o) == into.end()) into.push_back(o);
    }

    // grow takes a chunk of chunk_ bytes, or n when n is larger, ready in
    // s's order (the upstream clears it there): a free block of s's.
    std::map<char*, Free>::iterator grow(cudaStream_t s, size_t n) {
        const size_t bytes = std::max(rounded(chunk_), n);
        char* p = static_cast<char*>(upstream_.allocate(mr::stream_ref{s}, bytes));
        chunks_.push_back({p, bytes});
        CHECK(cudaEventRecord(event_of(s), s));
        return free_.emplace(p, Free{bytes, chunks_.size() - 1, {s}}).first;
    }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
