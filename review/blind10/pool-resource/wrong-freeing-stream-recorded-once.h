// kind: wrong (the record: a block freed on one stream is taken by another
//   that waits for a stale mark of the freeing stream; phase 3 on the default
//   run, probably, and phases 5 to 8)
// mistake: deallocate records the stream's event only when the stream has no
//   event yet ("the event is made and marked once"); since allocate makes a
//   stream's event at its first chunk, a free on a stream that took a chunk
//   records nothing at all.
// why it is wrong: a wait takes the event's latest record: a block taken from
//   another stream's list is then ordered only after that stream's last chunk
//   allocate, not after the work queued before the block's free.
// source: own; the lesson's "One event per stream is enough: a wait takes the
//   event's latest record, which comes after every earlier free" (true only if
//   every free records)
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
        for (const Chunk& c : chunks_) upstream_.deallocate_sync(c.base, c.bytes);
        for (const auto& e : events_) cudaEventDestroy(e.second);
    }

    // allocate hands out a block of at least `bytes` for work on
    // `stream`, starting on a multiple of 256 bytes: the best fit among
    // the free blocks, those `stream` freed itself first; when none fits,
    // from a new chunk. The host never waits here.
    void* allocate(mr::stream_ref stream, size_t bytes, size_t alignment = mr::default_alignment) {
        mr::check_alignment(alignment);   // at most 256: every block starts 256-aligned
        const cudaStream_t s = stream.get();
        const size_t need = bytes == 0 ? kAlign : (bytes + kAlign - 1) / kAlign * kAlign;
        // The asking stream's own free blocks first (no wait), then the
        // others' (a wait on the stream the block is free in).
        cudaStream_t from = s;
        char* at = best_fit(s, need);
        if (at == nullptr) {
            size_t best = 0;
            for (auto& list : free_) {
                if (list.first == s) continue;
                char* p = best_fit(list.first, need);
                if (p != nullptr && (at == nullptr || list.second.at(p).bytes < best)) {
                    at = p;
                    best = list.second.at(p).bytes;
                    from = list.first;
                }
            }
            if (at != nullptr) CHECK(cudaStreamWaitEvent(s, event_of(from), 0));
        }
        if (at == nullptr) {
            // A new chunk, ready in s's order: its rest is free in s's order.
            const size_t bytes_of_chunk = std::max(chunk_, need);
            char* base = static_cast<char*>(upstream_.allocate(stream, bytes_of_chunk));
            chunks_.push_back({base, bytes_of_chunk});
            // Mark s's event after the upstream's work on the chunk (its
            // clearing, in s's order), so that another stream taking the
            // rest later waits for it.
            CHECK(cudaEventRecord(event_of(s), s));
            free_[s][base] = {bytes_of_chunk, chunks_.size() - 1};
            at = base;
            from = s;
        }
        auto& list = free_[from];
        const Block b = list.at(at);
        list.erase(at);
        if (b.bytes > need) list[at + need] = {b.bytes - need, b.chunk};  // the rest stays in from's order
        if (list.empty()) free_.erase(from);
        used_[at] = {need, b.chunk};
        return at;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        auto it = used_.find(static_cast<char*>(p));
        if (it == used_.end()) return;  // not one of the pool's blocks
        const cudaStream_t s = stream.get();
        Block b = it->second;
        char* at = it->first;
        used_.erase(it);
        bool fresh = true;
        for (const auto& e : events_) fresh = fresh && e.first != s;
        if (fresh) CHECK(cudaEventRecord(event_of(s), s));  // the first free makes the event and marks it
        // Join with the neighbours free in the same stream's order and in
        // the same chunk: one event then stands for the whole block.
        auto& list = free_[s];
        auto next = list.lower_bound(at);
        if (next != list.end() && next->first == at + b.bytes && next->second.chunk == b.chunk) {
            b.bytes += next->second.bytes;
            next = list.erase(next);
        }
        if (next != list.begin()) {
            auto prev = std::prev(next);
            if (prev->first + prev->second.bytes == at && prev->second.chunk == b.chunk) {
                prev->second.bytes += b.bytes;
                return;
            }
        }
        list[at] = b;
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

    // My design, RMM's own shape: a free list for each stream (a map by
    // address, so that neighbours are found at once), the blocks handed
    // out in a hash map, and the chunks in the order they came. A block
    // knows its size and its chunk; a free block's stream is the list it
    // is in. A block taken from another stream's list leaves its rest in
    // that list: the rest is still free only in that stream's order.
    static constexpr size_t kAlign = mr::default_alignment;
    struct Block {
        size_t bytes;
        size_t chunk;
    };
    struct Chunk {
        char* base;
        size_t bytes;
    };
    std::vector<Chunk> chunks_;
    std::map<cudaStream_t, std::map<char*, Block>> free_;
    std::unordered_map<char*, Block> used_;

    // best_fit is the start of the smallest block free in s's order that
    // holds need bytes, or nullptr.
    char* best_fit(cudaStream_t s, size_t need) {
        auto list = free_.find(s);
        if (list == free_.end()) return nullptr;
        char* best = nullptr;
        size_t size = 0;
        for (const auto& b : list->second)
            if (b.second.bytes >= need && (best == nullptr || b.second.bytes < size)) {
                best = b.first;
                size = b.second.bytes;
            }
        return best;
    }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
