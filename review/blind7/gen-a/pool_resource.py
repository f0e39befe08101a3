EXERCISE = 'pool-resource'
STUDENT = 'exercises/day076/pool_resource.h'
EXT = 'h'
TODO = [
("""#include <algorithm>
#include <utility>
#include <vector>""", """#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>"""),
("""    ~pool_resource() {
        // TODO 1: give back what the pool took and made.
    }""",
"""    ~pool_resource() {
        for (const auto& c : chunks_) upstream_.deallocate_sync(c.first, c.second);
        for (const auto& e : events_) CHECK(cudaEventDestroy(e.second));
    }"""),
("""        // TODO 2: pick a block, or grow; order `stream` after the work
        // that freed it; keep what the block does not need free.
        (void)bytes;
        (void)stream;
        return nullptr;
    }""",
"""        const size_t size = bytes == 0 ? mr::default_alignment : round(bytes);
        cudaStream_t s = stream.get();
        // 1. The best fit among the blocks this stream freed: its own
        // order already follows their frees.
        FreeList& own = free_[s];
        FreeList::iterator it = best(own, size);
        if (it != own.end()) return carve(own, it, size);
        // 2. The best fit among the other streams' blocks: this stream
        // waits for the freeing stream's event (its latest record comes
        // after every free on that stream), and the block's rest stays
        // in the freeing stream's list, still free in that stream's order.
        FreeList* from = nullptr;
        cudaStream_t donor = nullptr;
        for (auto& l : free_) {
            if (l.first == s) continue;
            FreeList::iterator c = best(l.second, size);
            if (c != l.second.end() && (from == nullptr || c->second.size < it->second.size)) {
                from = &l.second;
                donor = l.first;
                it = c;
            }
        }
        if (from != nullptr) {
            CHECK(cudaStreamWaitEvent(s, event_of(donor), 0));
            return carve(*from, it, size);
        }
        // 3. A new chunk, asked for on this stream: ready in its order.
        // Its rest is free in this stream's list, so the stream's event is
        // recorded after the chunk's upstream work, for any other stream
        // that takes the rest.
        const size_t whole = std::max(chunk_, size);
        char* p = static_cast<char*>(upstream_.allocate(stream, whole));
        const int id = (int)chunks_.size();
        chunks_.push_back({p, whole});
        CHECK(cudaEventRecord(event_of(s), s));
        FreeList& mine = free_[s];
        it = mine.emplace(p, Free{whole, id}).first;
        return carve(mine, it, size);
    }"""),
("""    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        // TODO 3: find p, mark when it is free, and join it with its
        // neighbours.
        (void)p;
        (void)stream;
    }""",
"""    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        auto u = used_.find(static_cast<char*>(p));
        if (u == used_.end()) return;   // not a block this pool handed out
        Free b = u->second;
        char* at = u->first;
        used_.erase(u);
        cudaStream_t s = stream.get();
        CHECK(cudaEventRecord(event_of(s), s));
        // Join with the free neighbours of the same chunk in this stream's
        // list only: one event, this stream's, stands for all of them.
        FreeList& list = free_[s];
        FreeList::iterator next = list.lower_bound(at);
        if (next != list.end() && next->first == at + b.size && next->second.chunk == b.chunk) {
            b.size += next->second.size;
            next = list.erase(next);
        }
        if (next != list.begin()) {
            FreeList::iterator prev = std::prev(next);
            if (prev->first + prev->second.size == at && prev->second.chunk == b.chunk) {
                prev->second.size += b.size;
                return;
            }
        }
        list.emplace(at, b);
    }"""),
("""    // TODO 4: what else the pool keeps: its chunks, its free blocks and
    // the blocks handed out, with what allocate and deallocate need to
    // know of each.
};""",
"""    // A block: its size (a multiple of 256) and the chunk it lies in.
    struct Free {
        size_t size;
        int chunk;
    };
    // Each stream's free blocks by address, as RMM keeps them: blocks of
    // one list are free in that stream's order, and only they may join.
    using FreeList = std::map<char*, Free>;
    std::map<cudaStream_t, FreeList> free_;
    std::unordered_map<char*, Free> used_;          // handed out, by address
    std::vector<std::pair<char*, size_t>> chunks_;  // from the upstream, in order

    static size_t round(size_t n) {
        return (n + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment;
    }
    // best is the smallest block of list that holds size (the lowest
    // address among equals), or list.end().
    static FreeList::iterator best(FreeList& list, size_t size) {
        FreeList::iterator b = list.end();
        for (FreeList::iterator i = list.begin(); i != list.end(); ++i)
            if (i->second.size >= size && (b == list.end() || i->second.size < b->second.size)) b = i;
        return b;
    }
    // carve hands out the first size bytes of free block it of list; the
    // rest stays in list.
    char* carve(FreeList& list, FreeList::iterator it, size_t size) {
        char* p = it->first;
        Free b = it->second;
        list.erase(it);
        if (b.size > size) list.emplace(p + size, Free{b.size - size, b.chunk});
        used_[p] = Free{size, b.chunk};
        return p;
    }
};"""),
]
CORRECT = dict(
    kind='correct',
    mistake="none: a free list per stream (a std::map by address of each stream's free blocks, as RMM keeps them), a hash map of the blocks handed out and a vector of chunks; allocate takes the best fit of its own list, else the best fit of another stream's list after a wait for that stream's event, the rest staying in the donor's list, else a new chunk taken on the asking stream with that stream's event recorded after it; deallocate records the freeing stream's event and joins only within that stream's list and chunk",
    **{'why it is wrong': "it is not: a block and its rest are always in the list of a stream whose event covers their last use, a taker waits for that event, and a new chunk's rest is covered by a record after the chunk's upstream work"},
    source='none (written from the lesson and the student file)')
WRONG = [
('grow-event-recorded-before-the-chunk',
 dict(kind='wrong (order of calls between streams: a race the sums rarely show)',
      mistake="when the pool grows, it records the asking stream's event before asking the upstream for the chunk, not after, so the event does not cover the chunk's zeroing on that stream",
      **{'why it is wrong': "the chunk's rest is listed as free on the asking stream, and another stream that takes it waits for that stream's event: recorded before the upstream's memsets, the event marks nothing of them, and the taker's kernels may write the block while the memsets still run (phase 1's first round, where stream 1 takes the rest of stream 0's first chunk; phase 5, where A takes the rest of C's). The memsets are short and usually done first, so the sums come out right"},
      source='rapidsai/rmm#2489 and rapidsai/rmm#2490 (a stream\'s event left at a position that \"predates\" the work it had to cover, so a later taker\'s wait was stale)'),
 [("""        char* p = static_cast<char*>(upstream_.allocate(stream, whole));
        const int id = (int)chunks_.size();
        chunks_.push_back({p, whole});
        CHECK(cudaEventRecord(event_of(s), s));""",
   """        CHECK(cudaEventRecord(event_of(s), s));
        char* p = static_cast<char*>(upstream_.allocate(stream, whole));
        const int id = (int)chunks_.size();
        chunks_.push_back({p, whole});""")]),
('steals-from-the-first-other-list-only',
 dict(kind='wrong (a branch the defaults never take: three streams, phase 5)',
      mistake="when its own list has no fit, allocate looks at one other stream's list only, the first in the table, and grows when that one has no fit, though a third stream's list holds a block that fits",
      **{'why it is wrong': "with two streams there is one other list and nothing shows; with three (pool_resource 8 3), phase 5's A finds B's list and C's list, and whichever comes first in the table (by handle value, or empty after a take) may have no fit: the pool takes a new chunk while a freed block fits, so the second pool's upstream gives more chunks than the phase needs"},
      source='rapidsai/rmm#536 and rapidsai/rmm#532 (a pool that grew from upstream before reclaiming the blocks of every per-stream free list)'),
 [("""            if (c != l.second.end() && (from == nullptr || c->second.size < it->second.size)) {
                from = &l.second;
                donor = l.first;
                it = c;
            }
        }""",
   """            if (c != l.second.end() && (from == nullptr || c->second.size < it->second.size)) {
                from = &l.second;
                donor = l.first;
                it = c;
            }
            break;   // the first other stream's blocks
        }""")]),
('best-fit-across-every-stream',
 dict(kind='wrong (a cost the output does not show: streams that no longer overlap)',
      mistake="allocate takes the best fit among all the free blocks of every stream at once (the lowest address among equals), its own list not first, and waits for the freeing stream's event when the block is another stream's",
      **{'why it is wrong': "every reuse is still ordered, but a block of another stream wins over one of its own of the same size when it lies lower: in phase 1 each stream takes the block the other just freed, waits for the other's work, and the two streams run one after the other, round after round. The sums are right; the overlap the exercise asks for in phase 1 is gone"},
      source='rapidsai/rmm#850 (pool_memory_resource: applications that cycle between streams oversynchronize through the pool\'s stealing, losing their concurrency)'),
 [("""        FreeList& own = free_[s];
        FreeList::iterator it = best(own, size);
        if (it != own.end()) return carve(own, it, size);
        // 2.""",
   """        (void)free_[s];
        FreeList::iterator it;
        // 2."""),
  ("""            if (l.first == s) continue;
            FreeList::iterator c = best(l.second, size);
            if (c != l.second.end() && (from == nullptr || c->second.size < it->second.size)) {""",
   """            FreeList::iterator c = best(l.second, size);
            // The smallest block that fits, the lowest address among equals,
            // as an address-ordered best fit takes it.
            if (c != l.second.end() && (from == nullptr || c->second.size < it->second.size ||
                                        (c->second.size == it->second.size && c->first < it->first))) {"""),
  ("""        if (from != nullptr) {
            CHECK(cudaStreamWaitEvent(s, event_of(donor), 0));""",
   """        if (from != nullptr) {
            if (donor != s) CHECK(cudaStreamWaitEvent(s, event_of(donor), 0));""")]),
]
