// kind: correct
// mistake: none: an event for every free, not for every stream: each free block carries the event recorded at its own deallocate (or, for the rest of a new chunk, after the upstream's allocate), events lent from a spare list and counted by the blocks that share them; free blocks in one std::map by address with their stream, the handed-out blocks in an unordered_map; best fit in the asker's own stream, else among the others' behind a wait on that block's event, else a new chunk of max(chunk, request); a split's rest keeps the block's stream and event; joins with address neighbours of the same chunk and stream, keeping the newer event; chunks given back with deallocate_sync at their own size
// why it is wrong: it is not; a block reaches another stream only behind a wait on a record made after the last work on it, and nothing waits on the host
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
        for (const Chunk& c : chunks_) upstream_.deallocate_sync(c.base, c.bytes);
        chunks_.clear();
        for (cudaEvent_t ev : made_) cudaEventDestroy(ev);
        made_.clear();
        for (const auto& e : events_) cudaEventDestroy(e.second);
        events_.clear();
    }

    // allocate hands out a block of at least `bytes` for work on
    // `stream`, starting on a multiple of 256 bytes: the best fit among
    // the free blocks, those `stream` freed itself first; when none fits,
    // from a new chunk. The host never waits here.
    void* allocate(mr::stream_ref stream, size_t bytes, size_t alignment = mr::default_alignment) {
        mr::check_alignment(alignment);   // at most 256: every block starts 256-aligned
        const size_t n = bytes == 0 ? mr::default_alignment : (bytes + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment;
        const cudaStream_t s = stream.get();
        auto best = free_.end();
        for (int pass = 0; pass < 2 && best == free_.end(); pass++)
            for (auto it = free_.begin(); it != free_.end(); ++it) {
                const bool own = it->second.stream == s;
                if ((pass == 0) != own || it->second.bytes < n) continue;
                if (best == free_.end() || it->second.bytes < best->second.bytes) best = it;
            }
        if (best == free_.end()) {
            // Grow: the chunk is ready in s's order once the upstream's
            // work on it is; the mark for any other stream comes after it.
            const size_t size = std::max(chunk_, n);
            char* base = static_cast<char*>(upstream_.allocate(stream, size));
            if (base == nullptr) return nullptr;
            chunks_.push_back({base, size});
            cudaEvent_t ev = lend();
            CHECK(cudaEventRecord(ev, s));
            best = free_.emplace(base, Free{size, (int)chunks_.size() - 1, s, ev}).first;
        } else if (best->second.stream != s) {
            CHECK(cudaStreamWaitEvent(s, best->second.event, 0));
        }
        char* p = best->first;
        Free b = best->second;
        free_.erase(best);
        if (b.bytes > n) {
            // The rest stays free in the order it was free in: same stream,
            // same event (its count unchanged: the part handed out lets go).
            free_.emplace(p + n, Free{b.bytes - n, b.chunk, b.stream, b.event});
        } else {
            drop(b.event);
        }
        used_[p] = Used{n, b.chunk};
        return p;
    }

    // deallocate gives block p back, free once the work queued on
    // `stream` so far is done, joined with its free neighbours where
    // that is safe; the host does not wait for that work.
    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        auto u = used_.find(p);
        if (u == used_.end()) return;
        char* at = static_cast<char*>(p);
        Free f{u->second.bytes, u->second.chunk, stream.get(), lend()};
        used_.erase(u);
        if (cudaEventRecord(f.event, f.stream) != cudaSuccess) return;
        // Neighbours of the same chunk, free in the same stream: the new
        // record comes after theirs in that stream, so it stands for all.
        auto next = free_.lower_bound(at);
        if (next != free_.end() && next->first == at + f.bytes && next->second.chunk == f.chunk && next->second.stream == f.stream) {
            f.bytes += next->second.bytes;
            drop(next->second.event);
            next = free_.erase(next);
        }
        if (next != free_.begin()) {
            auto prev = std::prev(next);
            if (prev->first + prev->second.bytes == at && prev->second.chunk == f.chunk && prev->second.stream == f.stream) {
                at = prev->first;
                f.bytes += prev->second.bytes;
                drop(prev->second.event);
                free_.erase(prev);
            }
        }
        free_.emplace(at, f);
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
    // A free block: its size, its chunk, the stream it is free in, and the
    // event recorded there when it became free.
    struct Free {
        size_t bytes;
        int chunk;
        cudaStream_t stream;
        cudaEvent_t event;
    };
    struct Used {
        size_t bytes;
        int chunk;
    };
    std::vector<Chunk> chunks_;
    std::map<char*, Free> free_;
    std::unordered_map<void*, Used> used_;
    std::vector<cudaEvent_t> made_;                  // every event lend made
    std::vector<cudaEvent_t> spare_;                 // not carried by a free block
    std::unordered_map<cudaEvent_t, int> carried_;   // how many free blocks carry each

    // lend is an event for one more free block (timing off).
    cudaEvent_t lend() {
        cudaEvent_t ev;
        if (!spare_.empty()) {
            ev = spare_.back();
            spare_.pop_back();
        } else {
            CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
            made_.push_back(ev);
        }
        carried_[ev] = 1;
        return ev;
    }
    // drop lets go of one free block's hold on ev; a wait already queued
    // on it keeps its mark, so it may be recorded again at once.
    void drop(cudaEvent_t ev) {
        if (--carried_[ev] == 0) {
            carried_.erase(ev);
            spare_.push_back(ev);
        }
    }
};

static_assert(mr::is_resource<pool_resource>::value, "pool_resource has a resource's calls");
