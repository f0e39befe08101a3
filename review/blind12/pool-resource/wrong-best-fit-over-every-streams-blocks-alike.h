// kind: wrong (the record: a request takes another stream's block behind a wait while one of its own fits, a needless cross-stream dependency (the stream waits for all the other's work until its last free); output right)
// mistake: allocate looks for the tightest fit among every stream's free blocks at once, not first among the asking stream's own
// why it is wrong: the file promises the best fit among the blocks the stream freed itself first: those need no wait. Taking another stream's block orders the asker after that stream's latest free, so two streams that should overlap are serialized
// source: rapidsai/rmm#536 (per-stream free lists looked at before other streams'), own
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
        for (const Chunk& c : chunks_) upstream_.deallocate_sync(c.base, c.size);
        chunks_.clear();
        free_.clear();
        used_.clear();
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
        const size_t need = round(bytes);
        FreeList* from = nullptr;
        std::map<char*, size_t>::iterator best;
        // The tightest fit wherever it is: a wait is cheap, a chunk is not.
        for (int pass = 0; pass < 1; pass++)
            for (FreeList& fl : free_) {
                for (auto it = fl.blocks.begin(); it != fl.blocks.end(); ++it)
                    if (it->second >= need && (from == nullptr || it->second < best->second)) {
                        from = &fl;
                        best = it;
                    }
            }
        if (from == nullptr) {
            // A new chunk, ready in s's order; its rest is free in s's
            // order from after the upstream's own work on it.
            const size_t size = std::max(chunk_, need);
            char* base = static_cast<char*>(upstream_.allocate(stream, size));
            chunks_.push_back({base, size});
            if (size > need) {
                list_of(s).blocks[base + need] = size - need;
                CHECK(cudaEventRecord(event_of(s), s));
            }
            used_[base] = need;
            return base;
        }
        if (from->stream != s) CHECK(cudaStreamWaitEvent(s, event_of(from->stream), 0));
        char* p = best->first;
        const size_t have = best->second;
        from->blocks.erase(best);
        // The rest stays free where it was: in its own stream's order.
        if (have > need) from->blocks[p + need] = have - need;
        used_[p] = need;
        return p;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        auto u = used_.find(static_cast<char*>(p));
        if (u == used_.end()) return;
        char* at = u->first;
        size_t size = u->second;
        used_.erase(u);
        const cudaStream_t s = stream.get();
        CHECK(cudaEventRecord(event_of(s), s));
        auto& blocks = list_of(s).blocks;
        const int chunk = chunk_of(at);
        // Join with the next free block of the same chunk and stream...
        auto next = blocks.lower_bound(at);
        if (next != blocks.end() && next->first == at + size && chunk_of(next->first) == chunk) {
            size += next->second;
            next = blocks.erase(next);
        }
        // ...and with the one before it.
        if (next != blocks.begin()) {
            auto prev = std::prev(next);
            if (prev->first + prev->second == at && chunk_of(prev->first) == chunk) {
                prev->second += size;
                return;
            }
        }
        blocks[at] = size;
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
        size_t size;
    };
    // A stream's free blocks: address to size, each free in that
    // stream's order.
    struct FreeList {
        cudaStream_t stream;
        std::map<char*, size_t> blocks;
    };
    std::vector<Chunk> chunks_;
    std::vector<FreeList> free_;                  // one list a stream that freed or grew
    std::unordered_map<char*, size_t> used_;      // handed out: start to size

    static size_t round(size_t n) {
        if (n == 0) n = 1;
        return (n + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment;
    }
    FreeList& list_of(cudaStream_t s) {
        for (FreeList& fl : free_)
            if (fl.stream == s) return fl;
        free_.push_back({s, {}});
        return free_.back();
    }
    // chunk_of is the index of the chunk holding p.
    int chunk_of(const char* p) const {
        for (size_t i = 0; i < chunks_.size(); i++)
            if (p >= chunks_[i].base && p < chunks_[i].base + chunks_[i].size) return (int)i;
        return -1;
    }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
