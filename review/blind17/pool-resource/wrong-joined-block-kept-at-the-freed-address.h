// kind: wrong (default output, phase 2: the last give-back joins the 4 MiB before it but the joined block is listed at the freed block's address with the joined size, so it runs 4 MiB past its chunk: the 16 MiB request gets it: 'blocks: ... 1 not inside one chunk' (or more), and later blocks overlap; sums wrong where two blocks share bytes)
// mistake: deallocate, joining the free block before p, adds that block's size but keeps the joined block's start at p, 'the block grows'
// why it is wrong: joined with the block before it, the free block starts where that block starts; kept at p with the sum of both sizes, it covers bytes past its own end (the next block or past the chunk) and loses the bytes before p
// source: own
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
        for (const auto& c : chunks_) upstream_.deallocate(mr::stream_ref{cudaStream_t{}}, c.first, c.second);
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
        const size_t n = round(bytes == 0 ? 1 : bytes);
        char* p = nullptr;
        // The asking stream's own free blocks first: no wait at all.
        auto mine = by_size_.find(s);
        if (mine != by_size_.end()) {
            auto it = mine->second.lower_bound(n);
            if (it != mine->second.end()) p = it->second;
        }
        // Then the best fit among the other streams' blocks, behind a wait
        // for the stream in whose order it is free.
        if (p == nullptr) {
            size_t best = 0;
            cudaStream_t owner = nullptr;
            for (auto& list : by_size_) {
                if (list.first == s) continue;
                auto it = list.second.lower_bound(n);
                if (it == list.second.end()) continue;
                if (p == nullptr || it->first < best || (it->first == best && it->second < p)) {
                    p = it->second;
                    best = it->first;
                    owner = list.first;
                }
            }
            if (p != nullptr) CHECK(cudaStreamWaitEvent(s, event_of(owner), 0));
        }
        // Nothing fits: a new chunk, ready in s's order (the upstream
        // prepared it there), so its rest is listed as s's and s's event
        // is recorded for another stream that takes that rest.
        if (p == nullptr) {
            const size_t size = std::max(round(chunk_), n);
            p = static_cast<char*>(upstream_.allocate(stream, size));
            if (p == nullptr) return nullptr;
            chunks_.push_back({p, size});
            CHECK(cudaEventRecord(event_of(s), s));
            add_free(p, size, s, (int)chunks_.size() - 1);
        }
        // Cut: the block keeps n bytes, its rest stays free in the order
        // the whole block was free in.
        auto f = free_.find(p);
        const Free whole = f->second;
        remove_free(f);
        if (whole.size > n) add_free(p + n, whole.size - n, whole.owner, whole.chunk);
        out_[p] = {n, whole.chunk};
        return p;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        auto o = out_.find(static_cast<char*>(p));
        if (o == out_.end()) return;
        char* b = o->first;
        size_t size = o->second.first;
        const int chunk = o->second.second;
        out_.erase(o);
        const cudaStream_t s = stream.get();
        // Free once s's work so far is done: the stream's event, recorded
        // now, is what another stream waits for.
        CHECK(cudaEventRecord(event_of(s), s));
        // Join with free neighbours of the same chunk that are free in the
        // same stream's order; a block free in another stream's order
        // stays apart.
        auto next = free_.lower_bound(b);
        if (next != free_.end() && next->first == b + size && next->second.owner == s && next->second.chunk == chunk) {
            size += next->second.size;
            remove_free(next);
        }
        auto after = free_.lower_bound(b);
        if (after != free_.begin()) {
            auto prev = std::prev(after);
            if (prev->first + prev->second.size == b && prev->second.owner == s && prev->second.chunk == chunk) {
                size += prev->second.size;
                remove_free(prev);
            }
        }
        add_free(b, size, s, chunk);
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

    // Free blocks twice over: by address (to find neighbours), and for
    // each stream in whose order they are free, by size (best fit: the
    // smallest that holds a request). A block knows its chunk, so that
    // blocks of two chunks that happen to touch are never joined.
    struct Free {
        size_t size;
        cudaStream_t owner;
        int chunk;
    };
    std::map<char*, Free> free_;
    std::map<cudaStream_t, std::multimap<size_t, char*>> by_size_;
    std::unordered_map<char*, std::pair<size_t, int>> out_;   // handed out: size and chunk
    std::vector<std::pair<char*, size_t>> chunks_;            // from the upstream, each at its size

    static size_t round(size_t n) { return (n + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment; }

    void add_free(char* p, size_t size, cudaStream_t owner, int chunk) {
        free_[p] = Free{size, owner, chunk};
        by_size_[owner].insert({size, p});
    }
    void remove_free(std::map<char*, Free>::iterator it) {
        auto& list = by_size_[it->second.owner];
        auto range = list.equal_range(it->second.size);
        for (auto i = range.first; i != range.second; ++i)
            if (i->second == it->first) {
                list.erase(i);
                break;
            }
        free_.erase(it);
    }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
