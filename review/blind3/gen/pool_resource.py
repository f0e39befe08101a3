STUDENT = "exercises/day076/pool_resource.h"
DIR = "pool-resource"
EXT = "h"
COMMENT = "//"
CORRECT_HEADER = {
    "kind": "correct",
    "mistake": "none: chunks and blocks kept in vectors; a block knows its chunk head flag and the stream it was freed on; allocate looks at its own stream's free blocks first, then others' (waiting for that stream's event), else grows and records the stream's event after the upstream's zeroing; deallocate records the stream's event and joins with free neighbours of the same stream, never across a chunk head; the destructor returns each chunk with deallocate_sync and destroys the events.",
    "why it is wrong": "it is not: the design the lesson asks for (day076, \"A pool resource over an upstream\").",
    "source": "own (RMM's coalescing_free_list / stream_ordered_memory_resource as the lesson describes them)",
}
CORRECT = [
("""    ~pool_resource() {
        // TODO 1: give back what the pool took and made.
    }""", """    ~pool_resource() {
        for (const auto& c : chunks_) upstream_.deallocate_sync(c.first, c.second);
        chunks_.clear();
        for (const auto& e : events_) cudaEventDestroy(e.second);
        events_.clear();
    }"""),
("""        // TODO 2: pick a block, or grow; order `stream` after the work
        // that freed it; keep what the block does not need free.
        (void)bytes;
        (void)stream;
        return nullptr;""", """        const cudaStream_t s = stream.get();
        const size_t n = round_up(bytes == 0 ? 1 : bytes);
        size_t pick = pick_block(s, n, true);
        if (pick == npos) pick = pick_block(s, n, false);
        Block b;
        if (pick != npos) {
            b = free_[pick];
            free_.erase(free_.begin() + pick);
            if (b.stream != s)   // freed on another stream: s waits for that work
                CHECK(cudaStreamWaitEvent(s, event_of(b.stream), 0));
        } else {
            // Grow: a chunk of its own for a large request. The upstream's
            // memory is ready in s's order; s's event says when, for a
            // stream that later takes the rest of the chunk.
            const size_t size = std::max(chunk_, n);
            char* p = static_cast<char*>(upstream_.allocate(stream, size));
            chunks_.push_back({p, size});
            CHECK(cudaEventRecord(event_of(s), s));
            b = Block{p, size, true, s};
        }
        if (b.size > n) free_.push_back(Block{b.p + n, b.size - n, false, b.stream});
        used_.push_back(Block{b.p, n, b.head, s});
        return b.p;"""),
("""        // TODO 3: find p, mark when it is free, and join it with its
        // neighbours.
        (void)p;
        (void)stream;""", """        const cudaStream_t s = stream.get();
        size_t i = 0;
        while (i < used_.size() && used_[i].p != p) i++;
        if (i == used_.size()) return;   // not ours
        Block b = used_[i];
        used_.erase(used_.begin() + i);
        // Free once s's work so far is done: s's event, recorded now.
        if (cudaEventRecord(event_of(s), s) != cudaSuccess) return;
        b.stream = s;
        // Join with free neighbours freed on the same stream, never across
        // the start of a chunk (b.head, or the next block's head).
        for (size_t k = 0; k < free_.size();) {
            Block& f = free_[k];
            if (f.stream == s && f.p + f.size == b.p && !b.head) {
                b = Block{f.p, f.size + b.size, f.head, s};
                free_.erase(free_.begin() + k);
                k = 0;
            } else if (f.stream == s && b.p + b.size == f.p && !f.head) {
                b.size += f.size;
                free_.erase(free_.begin() + k);
                k = 0;
            } else {
                k++;
            }
        }
        free_.push_back(b);"""),
("""    // TODO 4: what else the pool keeps: its chunks, its free blocks and
    // the blocks handed out, with what allocate and deallocate need to
    // know of each.""", """    // A block: where it starts, its size (a multiple of 256), whether it
    // starts a chunk, and the stream that freed it (free blocks) or took
    // it (blocks handed out).
    struct Block {
        char* p = nullptr;
        size_t size = 0;
        bool head = false;
        cudaStream_t stream = nullptr;
    };
    static constexpr size_t npos = ~size_t(0);
    std::vector<std::pair<char*, size_t>> chunks_;   // as the upstream gave them
    std::vector<Block> free_;
    std::vector<Block> used_;

    static size_t round_up(size_t n) { return (n + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment; }

    // pick_block is the best fit for n bytes among the free blocks freed
    // on s (own) or on other streams (!own), or npos.
    size_t pick_block(cudaStream_t s, size_t n, bool own) const {
        size_t best = npos;
        for (size_t i = 0; i < free_.size(); i++) {
            const Block& f = free_[i];
            if ((f.stream == s) != own || f.size < n) continue;
            if (best == npos || f.size < free_[best].size) best = i;
        }
        return best;
    }"""),
]

WRONG = [
    ("best-fit-ignores-stream", {
        "kind": "waste: waits between streams that the design avoids (the streams stop overlapping)",
        "mistake": "allocate takes the best fit among all free blocks at once (ties to the lowest address), waiting for the freeing stream's event when it is another's, instead of looking at the stream's own blocks first.",
        "why it is wrong": "every wait is there, so nothing races and every sum is right; but in phase 1 the two streams' blocks are the same size, the tie goes to the other stream's block each round, and each stream waits for the other's last round: the kernels no longer overlap (the lesson: \"A request looks first among the blocks its own stream freed (no sync required)\"; the exercise: \"the streams' kernels are timed and must overlap in phase 1\").",
        "source": "own (reading \"best fit\" in the TODO as global)",
    }, [
        ("""        size_t pick = pick_block(s, n, true);
        if (pick == npos) pick = pick_block(s, n, false);""",
         """        size_t pick = npos;   // the best fit among all free blocks, the lowest address on a tie
        for (size_t i = 0; i < free_.size(); i++) {
            if (free_[i].size < n) continue;
            if (pick == npos || free_[i].size < free_[pick].size || (free_[i].size == free_[pick].size && free_[i].p < free_[pick].p)) pick = i;
        }"""),
    ]),
    ("wait-own-event", {
        "kind": "race (a wait for the wrong event)",
        "mistake": "when allocate takes a block another stream freed, it makes the stream wait for its own event (event_of(s)) instead of the freeing stream's (event_of(b.stream)).",
        "why it is wrong": "a wait for one's own stream's past orders nothing new: the block reaches s while the freeing stream's kernels may still use it (lesson: \"allocate(B, bytes) that picks that block makes B wait for A's event\"). Phase 3's reuse on the other stream and phase 5's takes race; the sums are often still right because the freeing stream has finished.",
        "source": "own",
    }, [
        ("                CHECK(cudaStreamWaitEvent(s, event_of(b.stream), 0));",
         "                CHECK(cudaStreamWaitEvent(s, event_of(s), 0));"),
    ]),
    ("grow-allocate-sync", {
        "kind": "a host wait where the lesson forbids it (inside allocate)",
        "mistake": "allocate grows with the upstream's allocate_sync (\"so the chunk is ready before it is handed out\") instead of allocate on the requesting stream.",
        "why it is wrong": "allocate_sync asks on the legacy default stream and waits on the host for it (memory_resource.h: \"The sync pair uses the default stream and waits for it\"); the pool \"may not wait on the host at all\" (lesson, the exercise), and the chunk is zeroed on the legacy stream rather than in the requesting stream's order. The sums are right because of the host wait.",
        "source": "own (the sync pair read as the safe one)",
    }, [
        ("            char* p = static_cast<char*>(upstream_.allocate(stream, size));",
         "            char* p = static_cast<char*>(upstream_.allocate_sync(size));"),
    ]),
    ("events-kept", {
        "kind": "a leak",
        "mistake": "the destructor gives every chunk back but never destroys the events event_of made.",
        "why it is wrong": "the destructor is to give back \"what the pool took and made\" (TODO 1); the lesson's exercise: \"the destructor (every chunk back to the upstream; every event destroyed)\". Nothing in the output shows it.",
        "source": "own",
    }, [
        ("""        for (const auto& e : events_) cudaEventDestroy(e.second);
        events_.clear();
""", ""),
    ]),
    ("merge-lists-no-record", {
        "kind": "race on a branch the defaults never take (a stale event after a list moves between streams)",
        "mistake": "when allocate takes another stream's block, it waits for that stream's event and, as RMM's pool does, moves that stream's whole free list into its own (each block tagged with s), but does not record s's event again after the wait.",
        "why it is wrong": "a third stream that later takes one of the moved blocks waits on s's event, whose last record (if any) comes before s's wait for the donor: it can reuse memory the donor's kernels still use. The course's phases never take a moved block on a third stream (phase 5's moved lists hold only the block taken), so every sum is right.",
        "source": "https://github.com/rapidsai/rmm/issues/2489 (merge_lists drops the dependency on the donor stream's in-flight work; fixed by https://github.com/rapidsai/rmm/pull/2490)",
    }, [
        ("""            if (b.stream != s)   // freed on another stream: s waits for that work
                CHECK(cudaStreamWaitEvent(s, event_of(b.stream), 0));""", """            if (b.stream != s) {   // freed on another stream: s waits for that work
                const cudaStream_t donor = b.stream;
                CHECK(cudaStreamWaitEvent(s, event_of(donor), 0));
                event_of(s);   // s's event exists, for the blocks it now lists
                // The donor's other free blocks are behind this wait too: s's now.
                for (auto& f : free_)
                    if (f.stream == donor) f.stream = s;
                b.stream = s;
            }"""),
    ]),
]
