"""pool-resource: the correct design and four wrong files (blind8, first half)."""
from mk import student, edit, header, write, wrong

EX, EXT = "pool-resource", "h"
t = student("exercises/day076/pool_resource.h")

t = edit(t, """#include <algorithm>
#include <utility>
#include <vector>""", """#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>""")

t = edit(t, """    ~pool_resource() {
        // TODO 1: give back what the pool took and made.
    }""", """    ~pool_resource() {
        for (const Chunk& c : chunks_) upstream_.deallocate_sync(c.base, c.size);
        chunks_.clear();
        for (const auto& e : events_) cudaEventDestroy(e.second);
        events_.clear();
    }""")

t = edit(t, """        mr::check_alignment(alignment);   // at most 256: every block starts 256-aligned
        // TODO 2: pick a block, or grow; order `stream` after the work
        // that freed it; keep what the block does not need free.
        (void)bytes;
        (void)stream;
        return nullptr;""", """        mr::check_alignment(alignment);   // at most 256: every block starts 256-aligned
        const size_t need = round(bytes == 0 ? 1 : bytes);
        const cudaStream_t s = stream.get();
        // The best fit among the blocks s freed itself (no wait), then
        // among the others' (a wait for the stream that freed it).
        size_t bc = SIZE_MAX, bi = 0, best = SIZE_MAX;
        for (int pass = 0; pass < 2 && bc == SIZE_MAX; pass++)
            for (size_t c = 0; c < chunks_.size(); c++)
                for (size_t i = 0; i < chunks_[c].segs.size(); i++) {
                    const Seg& g = chunks_[c].segs[i];
                    if (!g.free || g.size < need || (g.stream == s) != (pass == 0) || g.size >= best) continue;
                    bc = c, bi = i, best = g.size;
                }
        if (bc == SIZE_MAX) {
            // Nothing fits: a chunk of its own, ready in s's order. Its rest
            // stays free in s's order too: s's event is recorded after the
            // upstream's work on it, for a stream that takes the rest.
            const size_t size = std::max(chunk_, need);
            char* base = static_cast<char*>(upstream_.allocate(stream, size));
            chunks_.push_back({base, size, {{0, size, true, s}}});
            CHECK(cudaEventRecord(event_of(s), s));
            bc = chunks_.size() - 1;
            bi = 0;
        } else if (chunks_[bc].segs[bi].stream != s) {
            CHECK(cudaStreamWaitEvent(s, event_of(chunks_[bc].segs[bi].stream), 0));
        }
        std::vector<Seg>& segs = chunks_[bc].segs;
        if (segs[bi].size > need) {
            // The rest keeps the stream that freed it: another stream that
            // takes it must wait for that one, not for this taker.
            const Seg rest{segs[bi].off + need, segs[bi].size - need, true, segs[bi].stream};
            segs[bi].size = need;
            segs.insert(segs.begin() + bi + 1, rest);
        }
        segs[bi].free = false;
        segs[bi].stream = s;
        void* p = chunks_[bc].base + segs[bi].off;
        out_[p] = bc;
        return p;""")

t = edit(t, """        // TODO 3: find p, mark when it is free, and join it with its
        // neighbours.
        (void)p;
        (void)stream;""", """        const auto it = out_.find(p);
        if (it == out_.end()) return;
        Chunk& ch = chunks_[it->second];
        out_.erase(it);
        const size_t off = static_cast<size_t>(static_cast<char*>(p) - ch.base);
        std::vector<Seg>& segs = ch.segs;
        size_t i = 0;
        while (i < segs.size() && (segs[i].off != off || segs[i].free)) i++;
        if (i == segs.size()) return;
        const cudaStream_t s = stream.get();
        segs[i].free = true;
        segs[i].stream = s;
        CHECK(cudaEventRecord(event_of(s), s));
        // Neighbours in the same chunk that are free in the same stream's
        // order join it: after, then before.
        if (i + 1 < segs.size() && segs[i + 1].free && segs[i + 1].stream == s) {
            segs[i].size += segs[i + 1].size;
            segs.erase(segs.begin() + i + 1);
        }
        if (i > 0 && segs[i - 1].free && segs[i - 1].stream == s) {
            segs[i - 1].size += segs[i].size;
            segs.erase(segs.begin() + i);
        }""")

t = edit(t, """    // TODO 4: what else the pool keeps: its chunks, its free blocks and
    // the blocks handed out, with what allocate and deallocate need to
    // know of each.
};""", """    // Each chunk is a list of segments in address order (boundary tags):
    // a segment is free or handed out, and a free one is free in the order
    // of `stream` (the stream that freed it, or that asked for its chunk).
    // Joins happen only inside a chunk's list, so two chunks side by side
    // never become one block.
    struct Seg {
        size_t off, size;
        bool free;
        cudaStream_t stream;
    };
    struct Chunk {
        char* base;
        size_t size;
        std::vector<Seg> segs;
    };
    std::vector<Chunk> chunks_;
    std::unordered_map<void*, size_t> out_;   // a handed-out block's chunk

    static size_t round(size_t n) { return (n + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment; }
};""")

write(EX, "correct.h", header(
    "correct",
    "none: each chunk a vector of segments in address order (boundary tags: offset, size, free, the stream a free one is free in), the handed-out blocks in an unordered_map to their chunk; best fit among the asking stream's own free segments, then among the others' behind a wait on the freeing stream's event; the rest of a split keeps its stream; a new chunk's segment tagged with the asking stream, its event recorded after the upstream's allocate; joins only inside a chunk, with same-stream neighbours.",
    "none: it is correct.",
    "none (written from the lesson and the student file)."), t)
correct = t

wrong(EX, EXT, correct, "fresh-rest-taken-without-a-wait",
      "wrong (race with the upstream's zeroing: a stream takes the never-used rest of another stream's new chunk without waiting for it)",
      "the rest of a new chunk is marked fresh, and any stream may take a fresh segment without a wait, on the reasoning that no work has run on memory no block was ever cut from.",
      "the chunk is ready only in the asking stream's order: the upstream zeroes it there (a stream-ordered upstream's memory is the same); a second stream that takes the rest at once writes it while the zeroing may still run: phase 1 does this at its first round, and the hidden phase 5 again (A takes the rest of C's chunk).",
      "rapidsai/rmm#510 (its README: memory from allocate(bytes, stream_a) is valid on stream_a; using it on stream_b is undefined unless the two are synchronised first), the lesson's pitfall 1 (a kernel on B must come after an event recorded on A)",
      [("""        bool free;
        cudaStream_t stream;
    };
    struct Chunk {""", """        bool free;
        cudaStream_t stream;
        bool fresh;   // never handed out since its chunk came: no work on it
    };
    struct Chunk {"""),
       ("""                    if (!g.free || g.size < need || (g.stream == s) != (pass == 0) || g.size >= best) continue;""",
        """                    const bool mine = g.stream == s || g.fresh;
                    if (!g.free || g.size < need || mine != (pass == 0) || g.size >= best) continue;"""),
       ("""            chunks_.push_back({base, size, {{0, size, true, s}}});""", """            chunks_.push_back({base, size, {{0, size, true, s, true}}});"""),
       ("""        } else if (chunks_[bc].segs[bi].stream != s) {""", """        } else if (chunks_[bc].segs[bi].stream != s && !chunks_[bc].segs[bi].fresh) {"""),
       ("""            const Seg rest{segs[bi].off + need, segs[bi].size - need, true, segs[bi].stream};""",
        """            const Seg rest{segs[bi].off + need, segs[bi].size - need, true, segs[bi].stream, segs[bi].fresh};"""),
       ("""        segs[bi].free = false;
        segs[bi].stream = s;
        void* p""", """        segs[bi].free = false;
        segs[bi].fresh = false;
        segs[bi].stream = s;
        void* p"""),
       ("""            segs[i].size += segs[i + 1].size;
            segs.erase(segs.begin() + i + 1);""", """            segs[i].size += segs[i + 1].size;
            segs[i].fresh = false;
            segs.erase(segs.begin() + i + 1);"""),
       ("""            segs[i - 1].size += segs[i].size;
            segs.erase(segs.begin() + i);""", """            segs[i - 1].size += segs[i].size;
            segs[i - 1].fresh = false;
            segs.erase(segs.begin() + i);""")])

wrong(EX, EXT, correct, "donor-taken-as-the-other-of-two-streams",
      "wrong (shows only with three streams or more, the hidden phases 5 to 7: a steal waits for the wrong stream)",
      "a steal waits for the event of 'the other stream', the first stream in the pool's event list that is not the asking one, instead of the stream the block was freed in, as a pool written for two streams would.",
      "with two streams the other stream is always the one that freed the block; with three, A taking a block C freed may wait for B, which orders nothing of C's work on it: a reuse with no order back to its last user.",
      "rapidsai/rmm#2489 (a deterministic three-stream repro: a third stream steals a block and waits on an event that orders nothing of the donor's in-flight work), torch/cutorch#222 (the synchronisation performed with one of several streams only)",
      [("""        } else if (chunks_[bc].segs[bi].stream != s) {
            CHECK(cudaStreamWaitEvent(s, event_of(chunks_[bc].segs[bi].stream), 0));
        }""", """        } else if (chunks_[bc].segs[bi].stream != s) {
            // The block is the other stream's: wait for it.
            cudaStream_t other = chunks_[bc].segs[bi].stream;
            for (const auto& e : events_)
                if (e.first != s) {
                    other = e.first;
                    break;
                }
            CHECK(cudaStreamWaitEvent(s, event_of(other), 0));
        }""")])

wrong(EX, EXT, correct, "record-skipped-when-the-block-joins",
      "wrong (shows only in the hidden phase 6, with a third stream: a joined block's reuse waits for a mark made before the last work on it)",
      "deallocate records the freeing stream's event only when the block stays on its own; when it joins a free neighbour of the same stream it skips the record, reasoning that the neighbour's free already put a mark on that stream.",
      "the mark made at the neighbour's free comes before the work on this block: a stream that then takes the joined block waits for the older mark and may write the upper half while the freeing stream's kernels still use it (phase 6: A's two blocks joined, B takes 8 MiB); the default phases never steal a joined block.",
      "rapidsai/rmm#2489 and rapidsai/rmm#2490 (blocks merged into a list keyed by an event whose last recorded position predates the barrier: a later steal waits on stale state; fixed by recording the event again), rapidsai/rmm#1995 (a request to skip the event record at deallocation to save its cost)",
      [("""        segs[i].free = true;
        segs[i].stream = s;
        CHECK(cudaEventRecord(event_of(s), s));
        // Neighbours in the same chunk that are free in the same stream's
        // order join it: after, then before.
        if (i + 1 < segs.size() && segs[i + 1].free && segs[i + 1].stream == s) {""", """        segs[i].free = true;
        segs[i].stream = s;
        const bool joins = (i + 1 < segs.size() && segs[i + 1].free && segs[i + 1].stream == s) ||
                           (i > 0 && segs[i - 1].free && segs[i - 1].stream == s);
        if (!joins) CHECK(cudaEventRecord(event_of(s), s));  // a joined block has its neighbour's mark
        // Neighbours in the same chunk that are free in the same stream's
        // order join it: after, then before.
        if (i + 1 < segs.size() && segs[i + 1].free && segs[i + 1].stream == s) {""")])

wrong(EX, EXT, correct, "block-tagged-with-its-allocating-stream",
      "wrong (a branch the program's phases do not take: a block the freeing stream itself used after it took it from another)",
      "deallocate marks the freed block as free in the order of the stream it was allocated on (kept with the handed-out block) and records that stream's event, not the freeing stream's, as PyTorch's caching allocator ties a block to its allocation stream.",
      "a block is free in the order of the stream that freed it: when that stream used the block after waiting for the allocating one, a later reuse ordered after the allocating stream's event alone races the freeing stream's work; in the phases the stream that frees another's block (phase 3) has not used it, so nothing shows.",
      "NVlabs/cuda-oxide#619 (a buffer remembers its allocation stream and its drop frees it there, though the last use may be on another stream: the free can run before that use completes), rapidsai/rmm#510 (its README: the stream given to deallocate is the one the memory is free in)",
      [("""    std::unordered_map<void*, size_t> out_;   // a handed-out block's chunk""", """    std::unordered_map<void*, size_t> out_;   // a handed-out block's chunk
    std::unordered_map<void*, cudaStream_t> born_;   // the stream each block was allocated on"""),
       ("""        out_[p] = bc;
        return p;""", """        out_[p] = bc;
        born_[p] = s;
        return p;"""),
       ("""        const cudaStream_t s = stream.get();
        segs[i].free = true;""", """        const cudaStream_t s = born_.count(p) ? born_[p] : stream.get();
        born_.erase(p);
        segs[i].free = true;""")])
