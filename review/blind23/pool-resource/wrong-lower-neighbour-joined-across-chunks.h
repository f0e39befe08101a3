// kind: wrong (default output: in phase 3 the 4 MiB given back at the start of the second chunk joins the 16 MiB block at the end of the first (the upstream cuts chunks side by side): phase 4's 20 MiB is cut across the two chunks ('4. ... 2 chunk(s) taken' where 3 are wanted, '1 not inside one chunk'))
// mistake: deallocate joins the block with the free block before it when it ends exactly at the block's start and is free in the same stream's order, without comparing their chunks
// why it is wrong: two chunks may lie side by side in memory but are separate upstream allocations, each given back whole; a block must never span two of them
// source: own
// A pool resource over any upstream resource: the file to complete.
#pragma once
#include <algorithm>
#include <map>
#include <set>
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
        const size_t need = (std::max<size_t>(bytes, 1) + 255) / 256 * 256;
        char* at = nullptr;
        // The asker's own free blocks first: the smallest that fits, the
        // lower address among equals (the set is ordered by size, then
        // address). Free in s's order already: no wait.
        auto own = by_size_.find(s);
        if (own != by_size_.end()) {
            auto it = own->second.lower_bound({need, nullptr});
            if (it != own->second.end()) at = it->second;
        }
        // Else the best fit among the other streams' (one lower_bound per
        // stream), taken behind a wait for the stream it is free in.
        if (at == nullptr) {
            std::pair<size_t, char*> best{0, nullptr};
            cudaStream_t from = nullptr;
            for (const auto& t : by_size_) {
                if (t.first == s) continue;
                auto it = t.second.lower_bound({need, nullptr});
                if (it != t.second.end() && (best.second == nullptr || *it < best)) {
                    best = *it;
                    from = t.first;
                }
            }
            if (best.second != nullptr) {
                CHECK(cudaStreamWaitEvent(s, event_of(from), 0));
                at = best.second;
            }
        }
        // Else a new chunk, ready in s's order once the upstream's work on
        // it is: s's event is recorded after it, for whoever takes the rest.
        if (at == nullptr) {
            const size_t size = std::max(chunk_, need);
            at = static_cast<char*>(upstream_.allocate(stream, size));
            chunks_.push_back({at, size});
            CHECK(cudaEventRecord(event_of(s), s));
            list(at, Free{size, (int)chunks_.size() - 1, s});
        }
        // Cut the block from the front; the rest stays free in the order
        // of the stream it was free in.
        const Free f = free_.at(at);
        unlist(at);
        if (f.bytes > need) list(at + need, Free{f.bytes - need, f.chunk, f.tag});
        used_[at] = {need, f.chunk};
        return at;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        auto u = used_.find(static_cast<char*>(p));
        if (u == used_.end()) return;
        char* at = u->first;
        size_t bytes = u->second.first;
        const int chunk = u->second.second;
        used_.erase(u);
        const cudaStream_t s = stream.get();
        CHECK(cudaEventRecord(event_of(s), s));
        // Joined only with a free neighbour of the same chunk that is free
        // in the same stream's order.
        auto next = free_.find(at + bytes);
        if (next != free_.end() && next->second.chunk == chunk && next->second.tag == s) {
            bytes += next->second.bytes;
            unlist(next->first);
        }
        auto prev = free_.lower_bound(at);
        if (prev != free_.begin()) {
            --prev;
            if (prev->first + prev->second.bytes == at && prev->second.tag == s) {
                at = prev->first;
                bytes += prev->second.bytes;
                unlist(at);
            }
        }
        list(at, Free{bytes, chunk, s});
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

    // A free block: its size, its chunk, and the stream in whose order it
    // is free (its tag).
    struct Free {
        size_t bytes;
        int chunk;
        cudaStream_t tag;
    };
    // The chunks as asked of the upstream (start, size asked).
    std::vector<std::pair<char*, size_t>> chunks_;
    // The free blocks twice: by address, for the joins, and per tag
    // ordered by (size, address), for the best fit.
    std::map<char*, Free> free_;
    std::map<cudaStream_t, std::set<std::pair<size_t, char*>>> by_size_;
    // The blocks handed out: start -> (size cut, rounded to 256; chunk).
    std::unordered_map<char*, std::pair<size_t, int>> used_;

    void list(char* at, const Free& f) {
        free_[at] = f;
        by_size_[f.tag].insert({f.bytes, at});
    }
    void unlist(char* at) {
        auto it = free_.find(at);
        auto t = by_size_.find(it->second.tag);
        t->second.erase({it->second.bytes, at});
        if (t->second.empty()) by_size_.erase(t);
        free_.erase(it);
    }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
