from mk import *
EX = "stream-ordered-pool"
s = read("exercises/day088/stream_ordered_pool.h")
s = sub(s, '''        // TODO 1: return a block s may use once it gets there in its own
        // order: nullptr only when no block is free anywhere, no wait on
        // the host, and own, fresh or stolen counted by where it came
        // from (a block s freed itself, one never used, another's).
        (void)s;
        return nullptr;
''', '''        auto mine = lists_.find(s);
        if (mine != lists_.end() && !mine->second.blocks.empty()) {
            char* p = mine->second.blocks.back();   // s's own order covers its free
            mine->second.blocks.pop_back();
            own++;
            return p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        for (auto& [donor, list] : lists_) {
            if (donor == s || list.blocks.empty()) continue;
            // The donor's event was recorded at its latest free, after the
            // work that used every block in its list: s waits for it on
            // the GPU.
            CHECK(cudaStreamWaitEvent(s, list.freed, 0));
            char* p = list.blocks.front();
            list.blocks.erase(list.blocks.begin());
            stolen++;
            return p;
        }
        return nullptr;
''')
s = sub(s, '''        // TODO 2: keep p, with whatever another stream would need to
        // know before it may use p safely.
        (void)p;
        (void)s;
''', '''        auto it = lists_.find(s);
        if (it == lists_.end()) {
            it = lists_.emplace(s, List{}).first;
            CHECK(cudaEventCreateWithFlags(&it->second.freed, cudaEventDisableTiming));
        }
        it->second.blocks.push_back(static_cast<char*>(p));
        // One event a stream, recorded again at every free: a wait queued
        // before this record keeps the earlier one, and a later wait covers
        // every block the list holds.
        CHECK(cudaEventRecord(it->second.freed, s));
''')
s = sub(s, '''        // TODO 3: destroy what the pool made, then give the chunk back.
''', '''        for (auto& [st, list] : lists_) CHECK(cudaEventDestroy(list.freed));
        lists_.clear();
''')
s = sub(s, '''    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.
''', '''    // A stream's given-back blocks, and one event of that stream's,
    // recorded at its latest free.
    struct List {
        std::vector<char*> blocks;
        cudaEvent_t freed = nullptr;
    };
    std::map<cudaStream_t, List> lists_;
''')
correct = s
write(EX, "correct.h", header("//", "correct", "none: one event per stream (made at the stream's first give-back, destroyed in the destructor), recorded again at every deallocate on that stream; a std::map from stream to its list of blocks; own blocks first (newest), then fresh, then the oldest block of the first other stream in handle order, behind one cudaStreamWaitEvent on that stream's event.", "none.", "none (written from the lesson and the student file): RMM's stream_ordered_memory_resource keeps one event per stream in the same way (lesson's pointer).") + correct)

W = [
("freed-recorded-only-into-an-empty-list",
 "wrong (race the output shows only with a spin, and only when a stream gives back two blocks before one is stolen)",
 "deallocate records the stream's event only when the block goes into an empty list (the first block of a batch), taking the event to stand for the whole list until it empties.",
 "a block given back later on the same stream is covered only by the record made at the first free, before the work that used it: a steal of it waits for too little of the donor's work, and the taker's kernels can overwrite it while the donor's check still reads it. The busy stream gives back three blocks a round, so the case is common, but the data show it only when the race lands (bench's SPIN argument).",
 "NVIDIA/cub#156 (the caching allocator's ready event recorded at the wrong point relative to the blocks it stood for: another stream claimed a block still in use), rapidsai/rmm#2489 (a list's event that predates the work of blocks moved into it)",
 [('''        it->second.blocks.push_back(static_cast<char*>(p));
        // One event a stream, recorded again at every free: a wait queued
        // before this record keeps the earlier one, and a later wait covers
        // every block the list holds.
        CHECK(cudaEventRecord(it->second.freed, s));
''', '''        // One event a stream, recorded when its list starts filling: the
        // list's blocks are all given back after that.
        if (it->second.blocks.empty()) CHECK(cudaEventRecord(it->second.freed, s));
        it->second.blocks.push_back(static_cast<char*>(p));
''')]),
("donor-event-recorded-again-on-the-taker",
 "wrong (race: only when one stream steals twice from the same donor before the donor frees again)",
 "after its wait, a steal records the donor's event again on the stealing stream, so that the donor's list 'knows' the taker is now ordered after it.",
 "the donor's event now marks a point of the taker's stream, not of the donor's: the next steal from that donor's list (a block the donor gave back before the first steal) waits for the taker instead of the donor, and runs while the donor's kernels may still read the block. The busy stream takes three blocks, so two steals from one donor in a row happen on the default run; the output is right unless the race lands.",
 "pytorch/pytorch#23729 (the allocator's stream bookkeeping attached to the wrong stream: a block reallocated while another stream still used it), NVIDIA/TensorRT-LLM#15265 (an event that orders execution but not the allocator's reuse)",
 [('''            CHECK(cudaStreamWaitEvent(s, list.freed, 0));
''', '''            CHECK(cudaStreamWaitEvent(s, list.freed, 0));
            CHECK(cudaEventRecord(list.freed, s));   // the donor's list is now behind s too
''')]),
("block-index-in-ints",
 "wrong (one event for several blocks)",
 "the pool keeps an event per block instead of per stream (made in the constructor, one per block), and finds a block's event from its address as ((int*)p - (int*)chunk_) / block_, an index in ints divided by a size in bytes.",
 "the index is a quarter of the block's number, so blocks 0 to 3 share event 0, 4 to 7 event 1, and so on: a steal waits for whichever of those blocks was given back last, possibly on another stream, not for the stream that gave this block back; the output is right unless the race lands, and the hand-off run (--handoff) makes it likelier.",
 "no public thread found for this exact slip; the kind is issue 36's 'a single event standing in for each block's own' (blind sets graded in session 16), and NVIDIA/cub#156 (a block's event that does not stand for the block's own last use)",
 [('''        for (int i = blocks - 1; i >= 0; i--) fresh_.push_back(chunk_ + i * blockBytes);
''', '''        for (int i = blocks - 1; i >= 0; i--) fresh_.push_back(chunk_ + i * blockBytes);
        events_.resize(blocks);
        for (auto& e : events_) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
'''), ('''            CHECK(cudaStreamWaitEvent(s, list.freed, 0));
            char* p = list.blocks.front();
''', '''            char* p = list.blocks.front();
            CHECK(cudaStreamWaitEvent(s, event_of(p), 0));
'''), ('''        if (it == lists_.end()) {
            it = lists_.emplace(s, List{}).first;
            CHECK(cudaEventCreateWithFlags(&it->second.freed, cudaEventDisableTiming));
        }
        it->second.blocks.push_back(static_cast<char*>(p));
        // One event a stream, recorded again at every free: a wait queued
        // before this record keeps the earlier one, and a later wait covers
        // every block the list holds.
        CHECK(cudaEventRecord(it->second.freed, s));
''', '''        if (it == lists_.end()) it = lists_.emplace(s, List{}).first;
        it->second.blocks.push_back(static_cast<char*>(p));
        CHECK(cudaEventRecord(event_of(p), s));   // the block's own event
'''), ('''        for (auto& [st, list] : lists_) CHECK(cudaEventDestroy(list.freed));
        lists_.clear();
''', '''        for (auto& e : events_) CHECK(cudaEventDestroy(e));
        lists_.clear();
'''), ('''    // A stream's given-back blocks, and one event of that stream's,
    // recorded at its latest free.
    struct List {
        std::vector<char*> blocks;
        cudaEvent_t freed = nullptr;
    };
''', '''    // A stream's given-back blocks; each block has an event of its own.
    struct List {
        std::vector<char*> blocks;
    };
    std::vector<cudaEvent_t> events_;
    cudaEvent_t event_of(void* p) const { return events_[((int*)p - (int*)chunk_) / block_]; }
''')]),
]
for slug, kind, mis, why, src, edits in W:
    write(EX, "wrong-%s.h" % slug, header("//", kind, mis, why, src) + apply(correct, edits))
