STUDENT = "exercises/day076/pool_resource.h"
DIR = "pool-resource"
EXT = "h"
COMMENT = "//"
CORRECT_HEADER = dict(
    kind="correct (a design of its own)",
    mistake="""none. Two std::maps keyed by address (free blocks, blocks handed out),
    each block with its size, its chunk's index and, when free, the stream that
    freed it; the given one-event-per-stream event_of. A block taken from
    another stream's free blocks makes the taker wait for that stream's event,
    and the rest of the split STAYS tagged with the freeing stream. A new chunk
    is tagged with the asking stream, whose event is recorded right after the
    upstream allocation, so that a later taker of its rest waits for it. Joins
    only between blocks of one chunk freed on one stream.""",
    why="""it is not: every free block names the stream whose event covers it, and
    that event's latest record is at or after the block became free in that
    stream's order; no join mixes streams or chunks; nothing waits on the host.""",
    source="""own design from the lesson (day 76, "A pool resource over an upstream",
    "Pitfalls: lifetimes across streams", "Exercise: pool-resource"); RMM's
    coalescing free list as the lesson describes it.""")

CORRECT = [
("""    ~pool_resource() {
        // TODO 1: give back what the pool took and made.
    }""",
"""    ~pool_resource() {
        for (const auto& c : chunks_) upstream_.deallocate_sync(c.first, c.second);
        chunks_.clear();
        free_.clear();
        used_.clear();
        for (const auto& e : events_) cudaEventDestroy(e.second);
        events_.clear();
    }"""),
("""        // TODO 2: pick a block, or grow; order `stream` after the work
        // that freed it; keep what the block does not need free.
        (void)bytes;
        (void)stream;
        return nullptr;""",
"""        const size_t need = std::max<size_t>(mr::default_alignment,
                                             (bytes + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment);
        const cudaStream_t s = stream.get();
        auto best = [&](bool own) {
            auto pick = free_.end();
            for (auto it = free_.begin(); it != free_.end(); ++it) {
                if (it->second.bytes < need || (it->second.stream == s) != own) continue;
                if (pick == free_.end() || it->second.bytes < pick->second.bytes) pick = it;
            }
            return pick;
        };
        auto it = best(true);
        if (it == free_.end()) {
            it = best(false);
            if (it != free_.end()) CHECK(cudaStreamWaitEvent(s, event_of(it->second.stream), 0));
        }
        if (it == free_.end()) {
            const size_t size = std::max(chunk_, need);
            char* c = static_cast<char*>(upstream_.allocate(stream, size));
            chunks_.push_back({c, size});
            // the chunk is ready in s's order: a taker of its rest waits for this
            CHECK(cudaEventRecord(event_of(s), s));
            it = free_.emplace(c, Blk{size, s, chunks_.size() - 1}).first;
        }
        char* p = it->first;
        const Blk b = it->second;
        free_.erase(it);
        if (b.bytes > need) free_.emplace(p + need, Blk{b.bytes - need, b.stream, b.chunk});
        used_.emplace(p, Blk{need, s, b.chunk});
        return p;"""),
("""        // TODO 3: find p, mark when it is free, and join it with its
        // neighbours.
        (void)p;
        (void)stream;""",
"""        auto u = used_.find(static_cast<char*>(p));
        if (u == used_.end()) return;
        char* start = u->first;
        Blk b = u->second;
        used_.erase(u);
        b.stream = stream.get();
        CHECK(cudaEventRecord(event_of(b.stream), b.stream));
        auto next = free_.find(start + b.bytes);
        if (next != free_.end() && next->second.chunk == b.chunk && next->second.stream == b.stream) {
            b.bytes += next->second.bytes;
            free_.erase(next);
        }
        auto after = free_.lower_bound(start);
        if (after != free_.begin()) {
            auto prev = std::prev(after);
            if (prev->first + prev->second.bytes == start && prev->second.chunk == b.chunk && prev->second.stream == b.stream) {
                start = prev->first;
                b.bytes += prev->second.bytes;
                free_.erase(prev);
            }
        }
        free_.emplace(start, b);"""),
("""    // TODO 4: what else the pool keeps: its chunks, its free blocks and
    // the blocks handed out, with what allocate and deallocate need to
    // know of each.
};""",
"""    struct Blk {
        size_t bytes;
        cudaStream_t stream;  // free: the stream that freed it; handed out: the one it went to
        size_t chunk;         // index in chunks_
    };
    std::vector<std::pair<char*, size_t>> chunks_;  // as the upstream gave them
    std::map<char*, Blk> free_, used_;
};"""),
("#include <algorithm>\n", "#include <algorithm>\n#include <iterator>\n#include <map>\n"),
]

WRONG = [
("rest-retagged-to-taker", dict(
    kind="ordering: the rest of a stolen block keyed to the taking stream's event",
    mistake="""when a request is cut from a free block, the rest of the block is listed
    as freed on the requesting stream, whatever stream freed it; after a steal
    the taker waited for the donor's event, but its own event was not recorded
    again.""",
    why="""a third stream that later takes the rest waits for the taker's event,
    whose last record predates the taker's wait (or was never made: a no-op), so
    it can use memory the donor stream's work still uses.""",
    source="""rapidsai/rmm#2489 ("merge_lists drops the dependency on the donor stream's
    in-flight work": blocks moved into the allocating stream's list keyed by an
    event not recorded again); rapidsai/rmm#2490 (the fix)."""),
 [("""        if (b.bytes > need) free_.emplace(p + need, Blk{b.bytes - need, b.stream, b.chunk});""",
   """        if (b.bytes > need) free_.emplace(p + need, Blk{b.bytes - need, s, b.chunk});""")]),
("joins-across-chunks", dict(
    kind="a missing check: free neighbours joined across two upstream chunks",
    mistake="""deallocate joins a freed block with a free neighbour of the same stream
    that touches it, without asking whether the two lie in the same chunk; two
    chunks the upstream placed side by side can become one free block.""",
    why="""a block cut from such a join spans two upstream allocations: the pool may
    hand out memory that crosses a chunk's end, and its chunk bookkeeping (which
    chunk a block belongs to, each chunk given back whole) no longer holds.""",
    source="""rapidsai/rmm#397 ("pool_memory_resource error in merge_blocks": the merged
    block's is_head was not set, which "might cause blocks to be merged that
    shouldn't"); rapidsai/rmm#162 ("merging across upstream allocation
    boundaries" refused)."""),
 [("""        if (next != free_.end() && next->second.chunk == b.chunk && next->second.stream == b.stream) {""",
   """        if (next != free_.end() && next->second.stream == b.stream) {"""),
  ("""            if (prev->first + prev->second.bytes == start && prev->second.chunk == b.chunk && prev->second.stream == b.stream) {""",
   """            if (prev->first + prev->second.bytes == start && prev->second.stream == b.stream) {""")]),
("grows-instead-of-waiting", dict(
    kind="a missing branch: another stream's free blocks never taken, the pool grows instead",
    mistake="""allocate looks only among the blocks its own stream freed; when none fits
    it asks the upstream for a new chunk, even though another stream freed a
    block that fits.""",
    why="""the pool must reuse other streams' free blocks (after a wait) before it
    grows: here the 16 MiB asked on the other stream in phase 3 takes a new
    chunk, and each stream's memory stays apart, so the pool takes more chunks
    than the program allows for.""",
    source="""rapidsai/rmm#2039 ("Possible pool fragmentation with multiple streams":
    free space sits in other streams' lists while the pool grows); rapidsai/rmm#35
    ("Allocation beyond initial pool size does not reuse freed memory")."""),
 [("""        if (it == free_.end()) {
            it = best(false);
            if (it != free_.end()) CHECK(cudaStreamWaitEvent(s, event_of(it->second.stream), 0));
        }
""", "")]),
]
