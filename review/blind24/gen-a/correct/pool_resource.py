EX = "pool-resource"
STUDENT = "exercises/day076/pool_resource.h"
DESIGN = ("the free blocks kept PER STREAM, one address-ordered std::map (size, chunk index) for each stream in whose order its blocks are free, the streams in a "
          "std::map of their own; so a join looks only in the freeing stream's map (next block at the block's end, previous block by one step back), and only within "
          "one chunk; no block ever carries a stream tag; allocate takes the best fit of the asker's own map, else the best fit over every other stream's map behind "
          "ONE wait for that stream's event, else a chunk of max(chunk, rounded request) from the upstream on the asker's stream with the asker's event recorded after "
          "it; a cut leaves the rest in the map it came from; the blocks handed out in a std::unordered_map (rounded size, chunk); deallocate records the freeing "
          "stream's event after every free; the destructor gives each chunk back with the size asked, then destroys the events")
EDITS = [
("""#include <algorithm>
#include <utility>
#include <vector>
""",
"""#include <algorithm>
#include <iterator>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>
"""),
("""    ~pool_resource() {
        // TODO 1: give back what the pool took and made.
    }""",
"""    ~pool_resource() {
        for (const Chunk& c : chunks_) upstream_.deallocate(mr::stream_ref{cudaStream_t{}}, c.base, c.asked);
        for (const auto& e : events_) cudaEventDestroy(e.second);
    }"""),
("""        mr::check_alignment(alignment);   // at most 256: every block starts 256-aligned
        // TODO 2: pick a block, or grow; order `stream` after the work
        // that freed it; keep what the block does not need free.
        (void)bytes;
        (void)stream;
        return nullptr;""",
"""        mr::check_alignment(alignment);   // at most 256: every block starts 256-aligned
        const size_t need = bytes == 0 ? mr::default_alignment : (bytes + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment;
        const cudaStream_t s = stream.get();
        // The asker's own free blocks first: no wait at all.
        Blocks& own = free_[s];
        Blocks::iterator best = fit(own, need, own.end());
        if (best != own.end()) return cut(own, best, need);
        // Then every other stream's, behind a wait for that stream.
        Blocks* from = nullptr;
        cudaStream_t fromStream = nullptr;
        Blocks::iterator fb;
        for (auto& f : free_) {
            if (f.first == s) continue;
            Blocks::iterator it = fit(f.second, need, f.second.end());
            if (it != f.second.end() && (from == nullptr || it->second.bytes < fb->second.bytes)) {
                from = &f.second;
                fb = it;
                fromStream = f.first;
            }
        }
        if (from != nullptr) {
            CHECK(cudaStreamWaitEvent(s, event_of(fromStream), 0));
            return cut(*from, fb, need);
        }
        // Nothing fits: a new chunk, ready in s's order; its rest is free
        // in s's order, after the upstream's work on it.
        const size_t ask = std::max(chunk_, need);
        char* p = static_cast<char*>(upstream_.allocate(stream, ask));
        chunks_.push_back({p, ask});
        CHECK(cudaEventRecord(event_of(s), s));
        own[p] = {ask, chunks_.size() - 1};
        return cut(own, own.find(p), need);"""),
("""        // TODO 3: find p, mark when it is free, and join it with its
        // neighbours.
        (void)p;
        (void)stream;""",
"""        auto o = out_.find(static_cast<char*>(p));
        if (o == out_.end()) return;
        const cudaStream_t s = stream.get();
        char* at = o->first;
        size_t bytes = o->second.bytes;
        const size_t chunk = o->second.chunk;
        out_.erase(o);
        // Neighbours are joined only when free in this same stream's order
        // (so in this map) and of the same chunk.
        Blocks& fl = free_[s];
        auto next = fl.find(at + bytes);
        if (next != fl.end() && next->second.chunk == chunk) {
            bytes += next->second.bytes;
            fl.erase(next);
        }
        auto after = fl.lower_bound(at);
        bool joined = false;
        if (after != fl.begin()) {
            auto prev = std::prev(after);
            if (prev->first + prev->second.bytes == at && prev->second.chunk == chunk) {
                prev->second.bytes += bytes;
                joined = true;
            }
        }
        if (!joined) fl[at] = {bytes, chunk};
        // Free from here on in s's order: a taker on another stream waits
        // for this record (or a later one of s's).
        CHECK(cudaEventRecord(event_of(s), s));"""),
("""    // TODO 4: what else the pool keeps: its chunks, its free blocks and
    // the blocks handed out, with what allocate and deallocate need to
    // know of each.
};""",
"""    struct Chunk {
        char* base;
        size_t asked;  // what the upstream was asked for: what goes back
    };
    struct Block {
        size_t bytes;  // a multiple of 256
        size_t chunk;  // its chunk's index in chunks_
    };
    using Blocks = std::map<char*, Block>;  // by address
    std::vector<Chunk> chunks_;
    // The free blocks, per stream in whose order they are free.
    std::map<cudaStream_t, Blocks> free_;
    std::unordered_map<char*, Block> out_;  // the blocks handed out

    // fit is the smallest block of fl that holds need (the lowest such
    // address on a tie), or none.
    static Blocks::iterator fit(Blocks& fl, size_t need, Blocks::iterator none) {
        Blocks::iterator best = none;
        for (auto it = fl.begin(); it != fl.end(); ++it)
            if (it->second.bytes >= need && (best == none || it->second.bytes < best->second.bytes)) best = it;
        return best;
    }

    // cut hands out the first need bytes of the free block at it; the rest
    // stays free in the same map (the same stream's order).
    void* cut(Blocks& fl, Blocks::iterator it, size_t need) {
        char* p = it->first;
        const Block b = it->second;
        fl.erase(it);
        if (b.bytes > need) fl[p + need] = {b.bytes - need, b.chunk};
        out_[p] = {need, b.chunk};
        return p;
    }
};"""),
]
