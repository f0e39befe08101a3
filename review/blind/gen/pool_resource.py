ID = "pool-resource"
SRC = "exercises/day076/pool_resource.h"
NOTE = "Correct design: every block, free or handed out, in one std::map keyed by address (neighbours found by the map's order, not by scanning lists); a block carries its size, whether it heads a chunk, whether it is free and the stream that freed it. allocate takes the best fit freed on its own stream, else the best fit of another stream after a cudaStreamWaitEvent on that stream's event, re-tagging that stream's free blocks as its own; a grow records the allocating stream's event after the upstream's call, so that a later waiter on another stream is ordered after the chunk's readiness. Builds with pool_resource.cu and memory_resource.h (the file replaces exercises/day076/pool_resource.h)."
def H(kind, mistake, why, source):
    return {"kind": kind, "mistake": mistake, "why it is wrong": why, "source": source}
E = [
("""#include <algorithm>
#include <utility>
#include <vector>""", """#include <algorithm>
#include <map>
#include <utility>
#include <vector>"""),
("""    ~pool_resource() {
        // TODO 1: give back what the pool took and made.
    }""", """    ~pool_resource() {
        for (const auto& c : chunks_) upstream_.deallocate_sync(c.first, c.second);
        chunks_.clear();
        blocks_.clear();
        for (const auto& e : events_) cudaEventDestroy(e.second);
        events_.clear();
    }"""),
("""        // TODO 2: pick a block, or grow; order `stream` after the work
        // that freed it; keep what the block does not need free.
        (void)bytes;
        (void)stream;
        return nullptr;
    }""", """        const cudaStream_t s = stream.get();
        const size_t need = std::max<size_t>(256, (bytes + 255) / 256 * 256);
        auto it = best_fit(need, s, true);
        if (it == blocks_.end()) {
            it = best_fit(need, s, false);
            if (it != blocks_.end()) {
                // Freed on another stream: s waits for that stream's frees
                // so far, and so may take any block it has freed up to now.
                const cudaStream_t from = it->second.stream;
                CHECK(cudaStreamWaitEvent(s, event_of(from), 0));
                for (auto& b : blocks_)
                    if (b.second.free && b.second.stream == from) b.second.stream = s;
            }
        }
        if (it == blocks_.end()) it = grow(s, need);
        Block& b = it->second;
        if (b.size > need) {
            // The rest stays free, in the same chunk, in s's order.
            blocks_[it->first + need] = Block{b.size - need, false, true, s};
            b.size = need;
        }
        b.free = false;
        return it->first;
    }"""),
("""        // TODO 3: find p, mark when it is free, and join it with its
        // neighbours.
        (void)p;
        (void)stream;
    }""", """        auto it = blocks_.find(static_cast<char*>(p));
        if (it == blocks_.end() || it->second.free) return;
        const cudaStream_t s = stream.get();
        CHECK(cudaEventRecord(event_of(s), s));
        it->second.free = true;
        it->second.stream = s;
        // The next block, if it is of the same chunk and freed on s.
        auto next = std::next(it);
        if (next != blocks_.end() && joinable(it, next)) {
            it->second.size += next->second.size;
            blocks_.erase(next);
        }
        // The previous block, likewise.
        if (it != blocks_.begin()) {
            auto prev = std::prev(it);
            if (joinable(prev, it)) {
                prev->second.size += it->second.size;
                blocks_.erase(it);
            }
        }
    }"""),
("""    // TODO 4: what else the pool keeps: its chunks, its free blocks and
    // the blocks handed out, with what allocate and deallocate need to
    // know of each.
};""", """    struct Block {
        size_t size;
        bool head;            // the first block of a chunk: never joined to the one before
        bool free;
        cudaStream_t stream;  // the stream in whose order it is free
    };
    using Blocks = std::map<char*, Block>;
    Blocks blocks_;                               // every block, by address
    std::vector<std::pair<char*, size_t>> chunks_; // what the upstream gave

    // best_fit is the smallest free block of at least need bytes, among
    // those freed on s (own) or on other streams (!own).
    Blocks::iterator best_fit(size_t need, cudaStream_t s, bool own) {
        auto best = blocks_.end();
        for (auto it = blocks_.begin(); it != blocks_.end(); ++it) {
            const Block& b = it->second;
            if (!b.free || b.size < need || (b.stream == s) != own) continue;
            if (best == blocks_.end() || b.size < best->second.size) best = it;
        }
        return best;
    }

    // grow takes a chunk from the upstream on s, as one free block.
    Blocks::iterator grow(cudaStream_t s, size_t need) {
        const size_t size = std::max(chunk_, need);
        char* p = static_cast<char*>(upstream_.allocate(s, size));
        chunks_.push_back({p, size});
        // s's event now stands after the chunk is ready in s's order: a
        // stream that later takes a piece of it waits for this.
        CHECK(cudaEventRecord(event_of(s), s));
        return blocks_.emplace(p, Block{size, true, true, s}).first;
    }

    // joinable says whether b may absorb the block right after it, a.
    static bool joinable(Blocks::iterator b, Blocks::iterator a) {
        return b->second.free && a->second.free && !a->second.head && b->second.stream == a->second.stream &&
               b->first + b->second.size == a->first;
    }
};"""),
]
CORRECT = (H("correct", "None intended: blocks in one address-ordered map, best fit own stream first, then another stream's after a wait (its free blocks re-tagged), grow records the stream's event, coalescing only within a chunk and a stream.", "n/a", "own"), E)
WRONGS = [
 ("grow-no-record",
  H("a wait on a stale event",
    "When the pool grows on stream A it does not record A's event after the upstream's call, and the rest of the new chunk is listed as free on A. Stream B that later takes that rest waits for A's event, but the event's last record came before the chunk was zeroed on A (or it was never recorded, and the wait waits for nothing), so B may use memory A's upstream work still writes.",
    "Day 76, 'A pool resource over an upstream' (Streams) and the exercise text: a chunk is ready in the order of the stream that asked for it; a wait takes the event's latest record, so the record must come after the work it stands for.",
    "own (the lesson's own failure output shows the no-wait form of it)"),
  [("""        chunks_.push_back({p, size});
        // s's event now stands after the chunk is ready in s's order: a
        // stream that later takes a piece of it waits for this.
        CHECK(cudaEventRecord(event_of(s), s));""", """        chunks_.push_back({p, size});""")]),
 ("coalesce-any-stream",
  H("coalescing across streams",
    "deallocate joins the freed block with any free neighbour of the same chunk, whichever stream freed it, and lists the joined block as freed on the current stream. A later allocate on that stream takes the joined block with no wait, although part of it was freed on the other stream whose kernels may still use it; the sums usually still come out right.",
    "Day 76, 'A pool resource over an upstream': 'Two neighbours may be joined only when one event stands for both, that is, when they were freed on the same stream.'",
    "own"),
  [("""        return b->second.free && a->second.free && !a->second.head && b->second.stream == a->second.stream &&
               b->first + b->second.size == a->first;""", """        return b->second.free && a->second.free && !a->second.head && b->first + b->second.size == a->first;"""),
   ("""            if (joinable(prev, it)) {
                prev->second.size += it->second.size;""", """            if (joinable(prev, it)) {
                prev->second.size += it->second.size;
                prev->second.stream = it->second.stream; // the latest free wins""")]),
 ("one-event-all-streams",
  H("one event for many streams",
    "event_of is replaced by a single pool-wide event, recorded on whichever stream frees a block; allocate waits for it when it takes another stream's block. The wait then covers only the last free, which may have been on the allocating stream itself, not the other stream's free of the block taken.",
    "Day 76, 'A pool resource over an upstream': one event per stream, 'a wait takes the event's latest record, which comes after every earlier free on that stream'; re-recording an event moves its mark to the new stream.",
    "own"),
  [("""    cudaEvent_t event_of(cudaStream_t s) {
        for (const auto& e : events_)
            if (e.first == s) return e.second;""", """    cudaEvent_t event_of(cudaStream_t s) {
        (void)s; // one event is enough: it always holds the latest free
        if (!events_.empty()) return events_.front().second;""")]),
 ("poll-instead-of-wait",
  H("host wait disguised",
    "When it takes a block another stream freed, allocate spins on cudaEventQuery of that stream's event until it reports cudaSuccess, instead of queueing cudaStreamWaitEvent. No synchronisation API is called, but the host (and every stream it would feed) stops at each reuse across streams.",
    "Day 76, 'A pool resource over an upstream': the pool makes B wait for A's event, 'The host never waits'; the exercise: 'the pool may not wait on the host at all'.",
    "https://github.com/NVIDIA/cub/pull/156 (cub's caching allocator decides reuse across streams with cudaEventQuery; here the query is turned into a wait)"),
  [("""                CHECK(cudaStreamWaitEvent(s, event_of(from), 0));""",
    """                while (cudaEventQuery(event_of(from)) == cudaErrorNotReady) {
                } // the other stream's work on it is done now""")]),
 ("retag-every-stream",
  H("a branch the defaults never take (a third stream)",
    "After waiting for the event of the stream that freed the chosen block, allocate re-tags the free blocks of every other stream as its own, not just those of the stream it waited for. With two streams, as in this program, 'every other stream' is exactly the one waited for, so every check passes; with a third stream, blocks that stream freed are then taken without any wait.",
    "Day 76, 'A pool resource over an upstream': a block freed on A reaches B only after B waits for A's event; a wait for one stream orders nothing of another.",
    "own"),
  [("""                    if (b.second.free && b.second.stream == from) b.second.stream = s;""",
    """                    if (b.second.free) b.second.stream = s; // s has waited: every free block is its own now""")]),
]
