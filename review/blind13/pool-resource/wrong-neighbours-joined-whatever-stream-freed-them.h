// kind: wrong (the record (phases 1, 3, 5 to 8 where neighbours are freed on different streams): a joined block carries only the last freeing stream, and a stream that takes it waits for that stream alone, not for the other stream's work on the other part: an unordered reuse; sums usually right)
// mistake: deallocate joins the freed block with any free neighbour of the same chunk, whichever stream freed it, and tags the joined block with the stream freeing now, 'fewer, larger blocks fit more requests'
// why it is wrong: a free block is free in the order of the stream that freed it; two neighbours freed on different streams are free in two orders, and one tag (one event) cannot stand for both: the lesson's 'one that joins blocks freed on different streams uses memory no event ordered'
// source: rapidsai/rmm#649 (RMM's pool keeps free lists per stream; memory freed on one stream reused by another without its work done), own (the lesson's exercise text)
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
        for (const Chunk& c : chunks_) upstream_.deallocate_sync(c.base, c.bytes);
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
        const size_t n = round_up(bytes == 0 ? 1 : bytes);
        const cudaStream_t s = stream.get();
        // Best fit among the blocks s freed itself, then among the others'.
        auto best = free_.end(), other = free_.end();
        for (auto it = free_.begin(); it != free_.end(); ++it) {
            if (it->second.bytes < n) continue;
            auto& pick = it->second.stream == s ? best : other;
            if (pick == free_.end() || it->second.bytes < pick->second.bytes) pick = it;
        }
        if (best == free_.end() && other != free_.end()) {
            // Another stream's block: s follows that stream's latest free
            // (its event's latest record), which comes after this block's.
            CHECK(cudaStreamWaitEvent(s, event_of(other->second.stream), 0));
            best = other;
        }
        if (best == free_.end()) best = grow(s, n);
        char* p = best->first;
        Free f = best->second;
        free_.erase(best);
        if (f.bytes > n) free_[p + n] = Free{f.bytes - n, f.chunk, f.stream};  // the rest keeps its stream
        used_[p] = Used{n, f.chunk};
        return p;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        auto u = used_.find(static_cast<char*>(p));
        if (u == used_.end()) return;   // not one of this pool's blocks
        const cudaStream_t s = stream.get();
        CHECK(cudaEventRecord(event_of(s), s));
        char* at = u->first;
        Free f{u->second.bytes, u->second.chunk, s};
        used_.erase(u);
        // Join with the next block, then the previous, when each is free,
        // of the same chunk and freed on the same stream.
        auto next = free_.find(at + f.bytes);
        if (next != free_.end() && next->second.chunk == f.chunk) {
            f.bytes += next->second.bytes;
            free_.erase(next);
        }
        auto after = free_.lower_bound(at);
        if (after != free_.begin()) {
            auto prev = std::prev(after);
            if (prev->first + prev->second.bytes == at && prev->second.chunk == f.chunk) {
                prev->second.bytes += f.bytes;
                prev->second.stream = s;  // free now in s's order
                return;
            }
        }
        free_[at] = f;
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
        char* base;
        size_t bytes;
    };
    // A free block: its size, its chunk, and the stream in whose order it
    // is free (the stream that freed it, or that asked for its chunk).
    struct Free {
        size_t bytes;
        int chunk;
        cudaStream_t stream;
    };
    struct Used {
        size_t bytes;
        int chunk;
    };
    std::vector<Chunk> chunks_;
    std::map<char*, Free> free_;   // every stream's free blocks, by address
    std::map<char*, Used> used_;   // the blocks handed out

    static size_t round_up(size_t n) {
        return (n + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment;
    }

    // grow takes a chunk for a request of n bytes on s and lists it whole
    // as a free block of s. The upstream's memory is ready in s's order:
    // s's event is recorded after it, so that another stream taking the
    // chunk's rest later waits for the upstream's work too.
    std::map<char*, Free>::iterator grow(cudaStream_t s, size_t n) {
        const size_t bytes = std::max(chunk_, n);
        char* base = static_cast<char*>(upstream_.allocate(mr::stream_ref{s}, bytes));
        chunks_.push_back(Chunk{base, bytes});
        CHECK(cudaEventRecord(event_of(s), s));
        return free_.emplace(base, Free{bytes, (int)chunks_.size() - 1, s}).first;
    }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
