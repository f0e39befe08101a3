STUDENT = "exercises/day088/stream_ordered_pool.h"
DIR = "stream-ordered-pool"
EXT = "h"
COMMENT = "//"
CORRECT_HEADER = dict(
    kind="correct (a design of its own)",
    mistake="""none. Each block given back is kept with the stream that gave it back
    and an event recorded there, taken from a spare list of events (made when
    the list is empty, never destroyed before the destructor). An event goes
    back to the spare list only when its block is handed out again: at once
    for the stream's own block (no wait needed), after the taker's
    cudaStreamWaitEvent for a stolen one. Order: the stream's own most recent
    block, then a fresh one, then the oldest block any other stream gave back.""",
    why="""it is not: an event is recorded again only after the wait that needed its
    earlier record was queued; a stolen block is handed out only with the taker
    ordered after the work queued before its give-back; the host never waits.""",
    source="""own design from the lesson (day 88, "The pool (stream-ordered-pool)";
    day 87, "Several streams, one pool"); the runtime API reference,
    cudaEventRecord ("overwrite the previously captured state") and
    cudaStreamWaitEvent.""")

CORRECT = [
("""        // TODO 1: return a block s may use once it gets there in its own
        // order: nullptr only when no block is free anywhere, no wait on
        // the host, and own, fresh or stolen counted by where it came
        // from (a block s freed itself, one never used, another's).
        (void)s;
        return nullptr;""",
"""        for (size_t i = given_.size(); i-- > 0;) {
            if (given_[i].stream != s) continue;
            Given g = given_[i];
            given_.erase(given_.begin() + (long)i);
            spare_.push_back(g.event);
            own++;
            return g.block;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        if (given_.empty()) return nullptr;
        Given g = given_.front();   // the oldest give-back of another stream
        given_.erase(given_.begin());
        CHECK(cudaStreamWaitEvent(s, g.event, 0));
        spare_.push_back(g.event);  // the wait has taken its record
        stolen++;
        return g.block;"""),
("""        // TODO 2: keep p, with whatever another stream would need to
        // know before it may use p safely.
        (void)p;
        (void)s;""",
"""        cudaEvent_t e;
        if (spare_.empty()) {
            CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
            made_.push_back(e);
        } else {
            e = spare_.back();
            spare_.pop_back();
        }
        CHECK(cudaEventRecord(e, s));
        given_.push_back({static_cast<char*>(p), s, e});"""),
("""        // TODO 3: destroy what the pool made, then give the chunk back.
        CHECK(cudaFreeAsync(chunk_, setup_));""",
"""        for (cudaEvent_t e : made_) CHECK(cudaEventDestroy(e));
        made_.clear();
        spare_.clear();
        given_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));"""),
("""    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.
};""",
"""    struct Given {
        char* block;
        cudaStream_t stream;   // the stream that gave it back
        cudaEvent_t event;     // recorded there at the give-back
    };
    std::vector<Given> given_;         // in the order they were given back
    std::vector<cudaEvent_t> spare_;   // events no block holds
    std::vector<cudaEvent_t> made_;    // every event made, for the destructor
};"""),
]

WRONG = [
("event-recycled-at-record", dict(
    kind="a misplaced recycle: an event handed on as soon as it is recorded",
    mistake="""deallocate records its event and puts it straight back on the spare list,
    keeping its handle in the block's entry, on the belief that a recorded event
    has done its job; the next give-back, on any stream, records the same event
    again.""",
    why="""a record overwrites the event's state: the block's entry now names a
    record made on another stream (or later on this one), and a stream that
    steals the block waits for that record, not for the work queued before the
    block's own give-back; the block can be reused while its kernels run.""",
    source="""rapidsai/rapidsmpf#515 (review: "Once event->stream_wait is called, we
    can overwrite and reuse event": the reuse is safe only after the wait);
    eyalroz/cuda-api-wrappers#226 (cudaEventRecord "will overwrite the
    previously captured state")."""),
 [("""        CHECK(cudaEventRecord(e, s));
        given_.push_back({static_cast<char*>(p), s, e});""",
   """        CHECK(cudaEventRecord(e, s));
        spare_.push_back(e);   // recorded: free for the next give-back
        given_.push_back({static_cast<char*>(p), s, e});"""),
  ("""            given_.erase(given_.begin() + (long)i);
            spare_.push_back(g.event);
            own++;""",
   """            given_.erase(given_.begin() + (long)i);
            own++;"""),
  ("""        spare_.push_back(g.event);  // the wait has taken its record
        stolen++;""",
   """        stolen++;""")]),
("never-steals", dict(
    kind="a missing branch: blocks other streams gave back are never taken",
    mistake="""allocate serves a stream only from its own give-backs and the fresh
    blocks, and says nullptr when both are empty, keeping each stream's
    give-backs for that stream alone.""",
    why="""nullptr is for a pool with no free block anywhere: with 8 blocks and a
    busy stream that moves every round, the third round's busy stream finds its
    own list and the fresh blocks empty while other streams' blocks are free,
    and the program stops ("the pool had no block").""",
    source="""rapidsai/rmm#2039 ("Possible pool fragmentation with multiple streams":
    free space kept in other streams' lists is not reached before the pool
    fails); the student file's allocate contract ("nullptr only when no block
    is free anywhere")."""),
 [("""        if (given_.empty()) return nullptr;
        Given g = given_.front();   // the oldest give-back of another stream
        given_.erase(given_.begin());
        CHECK(cudaStreamWaitEvent(s, g.event, 0));
        spare_.push_back(g.event);  // the wait has taken its record
        stolen++;
        return g.block;""",
   """        return nullptr;""")]),
("own-test-inverted", dict(
    kind="an inverted condition: the own-list search takes other streams' blocks",
    mistake="""the loop that looks for a block the stream gave back itself skips the
    entries of its own stream instead of the others' (`==` for `!=`), so the
    newest block ANOTHER stream gave back is handed out as the stream's own,
    with no wait.""",
    why="""a block another stream gave back may still be read by that stream's
    kernels: handed out with no wait, the new owner's fill can land while the
    old owner's check runs (an unordered use, and errors when the race lands);
    the counts say "own" for blocks that were stolen.""",
    source="""kokkos/kokkos#4673 ("Fix a bug in CUDA scratch memory pool": the acquire
    loop did "the opposite of what we want to do", marking free entries busy
    and taking the wrong one)."""),
 [("""            if (given_[i].stream != s) continue;""",
   """            if (given_[i].stream == s) continue;""")]),
]
