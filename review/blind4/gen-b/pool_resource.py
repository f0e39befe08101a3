STUDENT = "exercises/day076/pool_resource.h"
DIR = "pool-resource"
EXT = "h"
COMMENT = "//"
CORRECT_HEADER = {
    "kind": "correct",
    "mistake": "none: every block of every chunk kept in one std::map by address (size, chunk head, free or not); a free block carries the stream that freed it and an event of its own recorded there at the free (events recycled through a spare list, not one per stream); allocate takes the best fit among the stream's own free blocks, else among the others' and waits for that block's event; the rest of a split block keeps the stream and event it had; a new chunk's rest gets an event recorded after the upstream's zeroing; deallocate joins with the map's neighbours only when they are free, freed on the same stream and not a chunk head, keeping the newest event.",
    "why it is wrong": "it is not: the lesson allows keeping events \"your own way\"; an event per free block orders a taker after exactly the free it needs, and a join keeps the event recorded last on the one stream both parts were freed on, which covers both.",
    "source": "own design; the per-block event idea is that of NVIDIA/cuCascade#158 (\"deallocate records a timing-disabled event on the freeing stream ... and stores it alongside the slab on the free list\")",
}
CORRECT = [
("""#include <algorithm>
#include <utility>""", """#include <algorithm>
#include <iterator>
#include <map>
#include <utility>"""),
("""    ~pool_resource() {
        // TODO 1: give back what the pool took and made.
    }""", """    ~pool_resource() {
        for (const auto& c : chunks_) upstream_.deallocate_sync(c.first, c.second);
        chunks_.clear();
        for (auto& b : blocks_)
            if (b.second.ready != nullptr) cudaEventDestroy(b.second.ready);
        blocks_.clear();
        for (cudaEvent_t e : spare_) cudaEventDestroy(e);
        spare_.clear();
        for (const auto& e : events_) cudaEventDestroy(e.second);
        events_.clear();
    }"""),
("""        // TODO 2: pick a block, or grow; order `stream` after the work
        // that freed it; keep what the block does not need free.
        (void)bytes;
        (void)stream;
        return nullptr;""", """        const cudaStream_t s = stream.get();
        const size_t n = round_up(bytes == 0 ? 1 : bytes);
        // The best fit, the stream's own free blocks before the others'.
        auto pick = blocks_.end();
        bool own = false;
        for (auto it = blocks_.begin(); it != blocks_.end(); ++it) {
            const Block& b = it->second;
            if (!b.free || b.size < n) continue;
            const bool mine = b.stream == s;
            if (pick == blocks_.end() || (mine && !own) || (mine == own && b.size < pick->second.size)) {
                pick = it;
                own = mine;
            }
        }
        if (pick == blocks_.end()) {
            // Grow: a chunk of its own for a large request. The upstream
            // zeroes it in s's order; the rest of it, left free, carries an
            // event recorded after that, for a taker on another stream.
            const size_t size = round_up(std::max(chunk_, n));
            char* c = static_cast<char*>(upstream_.allocate(stream, size));
            chunks_.push_back({c, size});
            Block whole;
            whole.size = size;
            whole.head = true;
            whole.free = true;
            whole.stream = s;
            if (size > n) {
                whole.ready = take_event();
                CHECK(cudaEventRecord(whole.ready, s));
            }
            pick = blocks_.emplace(c, whole).first;
        } else if (pick->second.stream != s && pick->second.ready != nullptr) {
            // Freed on another stream: s comes after the work before that free.
            CHECK(cudaStreamWaitEvent(s, pick->second.ready, 0));
        }
        char* p = pick->first;
        Block& b = pick->second;
        if (b.size > n) {
            // The rest stays free in the order it was free in: the same
            // stream, the same event.
            Block rest;
            rest.size = b.size - n;
            rest.free = true;
            rest.stream = b.stream;
            rest.ready = b.ready;
            blocks_.emplace(p + n, rest);
            b.size = n;
        } else {
            drop_event(b.ready);
        }
        b.ready = nullptr;
        b.free = false;
        b.stream = s;
        return p;"""),
("""        // TODO 3: find p, mark when it is free, and join it with its
        // neighbours.
        (void)p;
        (void)stream;""", """        auto it = blocks_.find(static_cast<char*>(p));
        if (it == blocks_.end() || it->second.free) return;   // not a block handed out
        const cudaStream_t s = stream.get();
        cudaEvent_t e = take_event();
        CHECK(cudaEventRecord(e, s));   // free once s's work so far is done
        Block& b = it->second;
        b.free = true;
        b.stream = s;
        b.ready = e;
        // Join the next block into this one: free, freed on s, same chunk.
        auto next = std::next(it);
        if (next != blocks_.end() && next->second.free && !next->second.head && next->second.stream == s &&
            it->first + b.size == next->first) {
            b.size += next->second.size;
            drop_event(next->second.ready);
            blocks_.erase(next);
        }
        // Join this block into the previous one, unless it starts a chunk.
        if (!b.head && it != blocks_.begin()) {
            auto prev = std::prev(it);
            if (prev->second.free && prev->second.stream == s && prev->first + prev->second.size == it->first) {
                prev->second.size += b.size;
                drop_event(prev->second.ready);
                prev->second.ready = e;   // recorded last on s: covers both parts
                blocks_.erase(it);
            }
        }"""),
("""    // TODO 4: what else the pool keeps: its chunks, its free blocks and
    // the blocks handed out, with what allocate and deallocate need to
    // know of each.""", """    // Every block of every chunk, by address: its size (a multiple of
    // 256), whether it starts a chunk, whether it is free and, for a free
    // block, the stream that freed it and an event of its own recorded
    // there at the free (nullptr when no other stream needs to wait).
    struct Block {
        size_t size = 0;
        bool head = false;
        bool free = false;
        cudaStream_t stream = nullptr;
        cudaEvent_t ready = nullptr;
    };
    std::map<char*, Block> blocks_;
    std::vector<std::pair<char*, size_t>> chunks_;   // as the upstream gave them
    std::vector<cudaEvent_t> spare_;                 // events no free block holds

    static size_t round_up(size_t n) { return (n + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment; }

    // An event to record: a spare one, or a new one. A spare event may be
    // recorded again: a wait already queued on it keeps the record it saw.
    cudaEvent_t take_event() {
        if (!spare_.empty()) {
            cudaEvent_t e = spare_.back();
            spare_.pop_back();
            return e;
        }
        cudaEvent_t e;
        CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        return e;
    }
    void drop_event(cudaEvent_t e) {
        if (e != nullptr) spare_.push_back(e);
    }"""),
]

WRONG = [
    ("join-keeps-older-event", {
        "kind": "race (a stale event kept where two free blocks are joined); latent under the default phases where the older free came after the same uses",
        "mistake": "when a freed block is joined into the free block before it, the joined block keeps the previous block's event (recorded at the earlier free) and the event just recorded is dropped.",
        "why it is wrong": "the earlier record on s comes before the work queued between the two frees; a taker on another stream that waits for the joined block's event may start while s's kernels still use the part freed last (the lesson: \"Two neighbours may be joined only when one event stands for both\"; here the event that stands for both is the later one).",
        "source": "rapidsai/rmm#2489 and its fix rapidsai/rmm#2490 (\"the allocating stream's event is not re-recorded. Its last recorded position ... predates the barrier\"): the same class of mistake, an event whose last record predates what it must cover",
    }, [
        ("""                drop_event(prev->second.ready);
                prev->second.ready = e;   // recorded last on s: covers both parts""",
         """                drop_event(e);   // the joined block keeps the event it had"""),
    ]),
    ("new-chunk-rest-unordered", {
        "kind": "race (a missing event: the rest of a new chunk has none)",
        "mistake": "when the pool grows, the rest of the new chunk is listed as free on s with no event, so a taker on another stream does not wait; the student reasoned that memory nobody has used yet needs no ordering.",
        "why it is wrong": "the upstream zeroes the whole chunk in the order of the stream that asked for it (pool_resource.cu: \"zeroes each chunk on the stream that asked for it\"); the second stream of phase 1 takes the rest of the first stream's chunk at once, and its fill can land before the zeroing, which then wipes it.",
        "source": "NVIDIA-BioNeMo/nvMolKit#55 (\"allocated on the default stream, meaning that very infrequently it was possible to access them before allocation completed\")",
    }, [
        ("""            if (size > n) {
                whole.ready = take_event();
                CHECK(cudaEventRecord(whole.ready, s));
            }
""", ""),
    ]),
    ("split-at-request-size", {
        "kind": "wrong size (a split at the bytes asked for, not at the rounded size)",
        "mistake": "the rest of a split block starts at p + bytes, the size the caller asked for, while the block handed out is listed with the rounded size; the student rounded for the fit test only.",
        "why it is wrong": "phase 1's second block is 100 bytes short of 4 MiB: the rest then starts 100 bytes before a 256-byte boundary and overlaps the listed block's last 100 bytes; every later block cut from it is misaligned (the lesson: \"A request is rounded up to 256 bytes (so every block starts aligned)\").",
        "source": "own (a classic suballocator slip: RMM's align_up is applied to the size that is stored, and a split must use the same size)",
    }, [
        ("""            blocks_.emplace(p + n, rest);
            b.size = n;""", """            rest.size = b.size - bytes;
            blocks_.emplace(p + bytes, rest);
            b.size = n;"""),
    ]),
    ("poll-event-before-reuse", {
        "kind": "a host busy wait (polling an event) where the pool must not wait at all",
        "mistake": "a block freed on another stream is handed out after the host spins on cudaEventQuery(block's event) until it stops saying cudaErrorNotReady, instead of cudaStreamWaitEvent.",
        "why it is wrong": "the data are right, but the host waits, and with it every stream the program would queue next (the exercise: \"the pool may not wait on the host at all\"; the lesson: \"The host never waits\"). A poll is a host wait that no synchronisation call shows.",
        "source": "NVIDIA developer forums, \"Async synchronization dramatically loads CPU\" (host-side waiting on stream work spins the CPU); triton-inference-server/server#1108 (\"Use busy-wait on CUDA event\")",
    }, [
        ("""            // Freed on another stream: s comes after the work before that free.
            CHECK(cudaStreamWaitEvent(s, pick->second.ready, 0));""",
         """            // Freed on another stream: hand it out once that work is over.
            cudaError_t q;
            while ((q = cudaEventQuery(pick->second.ready)) == cudaErrorNotReady) {
            }
            CHECK(q);"""),
    ]),
    ("chunks-back-by-head-block", {
        "kind": "wrong size (chunks given back as the free blocks that start them)",
        "mistake": "the destructor does not use the list of chunks: it gives back every block that starts a chunk, with that block's size, assuming every chunk has coalesced back into one block by then.",
        "why it is wrong": "blocks freed on different streams are never joined (the pool must not join them), so after phase 1 a chunk is still in pieces of both streams; its head block is smaller than the chunk, the upstream refuses the size (\"other deallocations\") and the rest of the chunk is never given back (the lesson: each chunk \"to be given back whole\").",
        "source": "own",
    }, [
        ("""        for (const auto& c : chunks_) upstream_.deallocate_sync(c.first, c.second);
        chunks_.clear();""",
         """        for (const auto& b : blocks_)
            if (b.second.head) upstream_.deallocate_sync(b.first, b.second.size);
        chunks_.clear();"""),
    ]),
]
