from gen import read, edit, header, write

S = read("exercises/day076/pool_resource.h")

C = S
C = edit(C, "#include <algorithm>\n", "#include <algorithm>\n#include <map>\n")
C = edit(C, """    ~pool_resource() {
        // TODO 1: give back what the pool took and made.
    }""", """    ~pool_resource() {
        for (const auto& c : chunks_) upstream_.deallocate_sync(c.first, c.second);
        for (const auto& e : events_) cudaEventDestroy(e.second);
    }""")
C = edit(C, """        mr::check_alignment(alignment);   // at most 256: every block starts 256-aligned
        // TODO 2: pick a block, or grow; order `stream` after the work
        // that freed it; keep what the block does not need free.
        (void)bytes;
        (void)stream;
        return nullptr;
    }""", """        mr::check_alignment(alignment);   // at most 256: every block starts 256-aligned
        const cudaStream_t s = stream.get();
        const size_t need = round(bytes == 0 ? 1 : bytes);
        auto it = best_fit(s, need, true);
        if (it == blocks_.end()) {
            it = best_fit(s, need, false);
            if (it != blocks_.end()) {
                // As RMM does: wait once for the stream that freed it, and
                // take that stream's whole free list into this one's order.
                const cudaStream_t donor = it->second.stream;
                CHECK(cudaStreamWaitEvent(s, event_of(donor), 0));
                for (auto& b : blocks_)
                    if (b.second.free && b.second.stream == donor) b.second.stream = s;
                // s's event must now cover the donor's frees as well
                CHECK(cudaEventRecord(event_of(s), s));
                join_all();
                it = best_fit(s, need, true);
            }
        }
        if (it == blocks_.end()) it = grow(s, need);
        Block& b = it->second;
        if (b.size > need) blocks_[it->first + need] = Block{b.size - need, true, false, b.stream};
        b.size = need;
        b.free = false;
        return it->first;
    }""")
C = edit(C, """    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        // TODO 3: find p, mark when it is free, and join it with its
        // neighbours.
        (void)p;
        (void)stream;
    }""", """    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {
        auto it = blocks_.find(static_cast<char*>(p));
        if (it == blocks_.end() || it->second.free) return;
        const cudaStream_t s = stream.get();
        CHECK(cudaEventRecord(event_of(s), s));
        it->second.free = true;
        it->second.stream = s;
        auto next = std::next(it);
        if (next != blocks_.end() && joinable(it, next)) {
            it->second.size += next->second.size;
            blocks_.erase(next);
        }
        if (it != blocks_.begin()) {
            auto prev = std::prev(it);
            if (joinable(prev, it)) {
                prev->second.size += it->second.size;
                blocks_.erase(it);
            }
        }
    }""")
C = edit(C, """    // TODO 4: what else the pool keeps: its chunks, its free blocks and
    // the blocks handed out, with what allocate and deallocate need to
    // know of each.
};""", """    // Every block of every chunk, free or handed out, by address: a free
    // block remembers the stream in whose order it became free; a head
    // block starts a chunk and is never joined with the block before it.
    struct Block {
        size_t size;
        bool free;
        bool head;
        cudaStream_t stream;
    };
    std::map<char*, Block> blocks_;
    std::vector<std::pair<char*, size_t>> chunks_;  // as the upstream gave them

    static size_t round(size_t n) { return (n + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment; }

    using iter = std::map<char*, Block>::iterator;

    // best_fit is the smallest free block of at least need bytes freed on
    // s (own) or on another stream (!own).
    iter best_fit(cudaStream_t s, size_t need, bool own) {
        iter best = blocks_.end();
        for (iter it = blocks_.begin(); it != blocks_.end(); ++it) {
            const Block& b = it->second;
            if (!b.free || b.size < need || (b.stream == s) != own) continue;
            if (best == blocks_.end() || b.size < best->second.size) best = it;
        }
        return best;
    }

    // joinable: a and the block right after it are both free in one
    // stream's order, touch, and lie in one chunk.
    bool joinable(iter a, iter b) const {
        return a->second.free && b->second.free && a->second.stream == b->second.stream && !b->second.head &&
               a->first + a->second.size == b->first;
    }

    void join_all() {
        iter it = blocks_.begin();
        while (it != blocks_.end()) {
            iter next = std::next(it);
            if (next != blocks_.end() && joinable(it, next)) {
                it->second.size += next->second.size;
                blocks_.erase(next);
            } else {
                it = next;
            }
        }
    }

    // grow takes a chunk (chunk_ bytes, or need when larger) from the
    // upstream on s, where it is ready; s's event is recorded after it so
    // that a stream that later waits for s also waits for the chunk.
    iter grow(cudaStream_t s, size_t need) {
        const size_t bytes = std::max(chunk_, need);
        char* p = static_cast<char*>(upstream_.allocate(mr::stream_ref{s}, bytes));
        chunks_.push_back({p, bytes});
        CHECK(cudaEventRecord(event_of(s), s));
        return blocks_.emplace(p, Block{round(bytes), true, true, s}).first;
    }
};""")
write("pool-resource", "correct.h", header(
    "correct",
    "none: one std::map of every block by address (free and handed out); a steal waits once for the donor stream's event, takes the donor's whole free list into the taker's order (as RMM does), records the taker's event again after that wait, and joins what now touches; a new chunk is taken on the asking stream and that stream's event recorded after it.",
    "it is not wrong: every cross-stream reuse waits for the stream that freed the block, joins stay within one stream's order and one chunk, each chunk goes back whole.",
    "none (written from the lesson and the student files).").replace("// ", "// ", 1) + C)

# wrong 1: chunks taken on the default stream.
W1 = C
W1 = edit(W1, """        char* p = static_cast<char*>(upstream_.allocate(mr::stream_ref{s}, bytes));""", """        // The chunk belongs to the pool, not to the stream that happened
        // to need it first: take it on the default stream.
        char* p = static_cast<char*>(upstream_.allocate(mr::stream_ref{cudaStream_t{}}, bytes));""")
write("pool-resource", "wrong-chunks-taken-on-default-stream.h", header(
    "wrong",
    "grow asks the upstream for a new chunk on the default stream (stream 0) instead of the stream that needs it, and hands the block out on that stream at once.",
    "an upstream's memory is ready in the order of the stream it was asked on: here the chunk's first use on a non-blocking stream is not ordered after the legacy stream's part of the allocation (the program's upstream zeroes each chunk there), so a kernel can write the block while the zeroing still runs; the zeroing is queued first and is short, so the sums come out right.",
    "Genesis-Embodied-AI/quadrants#667 (uploads on the default stream read by kernels on non-blocking pool streams: uninitialised memory, a page fault), apache/arrow-nanoarrow#509 (review: allocating on the default stream is unsafe for callers on non-blocking streams)") + W1)

# wrong 2: a freed block joins only the block after it.
W2 = C
W2 = edit(W2, """        if (it != blocks_.begin()) {
            auto prev = std::prev(it);
            if (joinable(prev, it)) {
                prev->second.size += it->second.size;
                blocks_.erase(it);
            }
        }
    }""", """    }""")
write("pool-resource", "wrong-joins-only-the-block-after.h", header(
    "wrong",
    "deallocate joins the freed block with a free neighbour after it, never with one before it.",
    "blocks freed in ascending order join up (each joins the free block after it only when freed after it), but a block freed after its lower neighbour stays apart from it: four 4 MiB blocks given back out of order leave 16 MiB free in two or more pieces, and the 16 MiB request takes a new chunk; nothing is misused, every sum is right, only the chunk count grows.",
    "SynestiaOS/SynestiaOS#3 (heap blocks not merged when the neighbour's address is smaller than the freed block's), evmar/theseus#26 (a free-list insertion that prevented coalescing with the preceding neighbour: allocations failed with enough contiguous memory free)") + W2)

# wrong 3: the taker's event recorded before its wait.
W3 = C
W3 = edit(W3, """                const cudaStream_t donor = it->second.stream;
                CHECK(cudaStreamWaitEvent(s, event_of(donor), 0));
                for (auto& b : blocks_)
                    if (b.second.free && b.second.stream == donor) b.second.stream = s;
                // s's event must now cover the donor's frees as well
                CHECK(cudaEventRecord(event_of(s), s));""", """                const cudaStream_t donor = it->second.stream;
                // s's event must now cover the donor's frees as well: mark
                // s, then make it wait for the donor
                CHECK(cudaEventRecord(event_of(s), s));
                CHECK(cudaStreamWaitEvent(s, event_of(donor), 0));
                for (auto& b : blocks_)
                    if (b.second.free && b.second.stream == donor) b.second.stream = s;""")
write("pool-resource", "wrong-taker-event-recorded-before-its-wait.h", header(
    "wrong",
    "after taking another stream's free list (RMM's move), the pool records the taking stream's event again, but before its wait for the donor instead of after it.",
    "a record captures the work queued on its stream so far: recorded before the wait, the taker's event does not cover the donor's frees, yet the donor's blocks are now listed as the taker's, so a third stream that later takes one of them waits only for the taker's event and may write the block while the donor's kernels still use it. Only the three-stream run (phase 5) takes that branch; the two-stream phases print right.",
    "torch/cutorch#222 (an event examines only the work captured by its most recent record: synchronisation that relied on other records passed its tests only because the work happened to finish in order)") + W3)
