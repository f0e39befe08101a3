from lib import build

S = "exercises/day088/stream_ordered_pool.h"

ALLOC_OLD = """        // TODO 1: return a block s may use once it gets there in its own
        // order: nullptr only when no block is free anywhere, no wait on
        // the host, and own, fresh or stolen counted by where it came
        // from (a block s freed itself, one never used, another's).
        (void)s;
        return nullptr;"""
ALLOC_NEW = """        // TODO 1: return a block s may use once it gets there in its own
        // order: nullptr only when no block is free anywhere, no wait on
        // the host, and own, fresh or stolen counted by where it came
        // from (a block s freed itself, one never used, another's).
        auto mine = given_.find(s);
        if (mine != given_.end() && !mine->second.empty()) {
            // s gave it back itself: its own order already covers the work.
            Entry e = mine->second.back();
            mine->second.pop_back();
            spare_.push_back(e.done);
            own++;
            return e.block;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        // Another stream's: the OLDEST give-back of all (each list is in
        // give-back order, so a list's oldest is its front), whose work is
        // the likeliest to be done already.
        auto from = given_.end();
        for (auto it = given_.begin(); it != given_.end(); ++it) {
            if (it->first == s || it->second.empty()) continue;
            if (from == given_.end() || it->second.front().seq < from->second.front().seq) from = it;
        }
        if (from == given_.end()) return nullptr;
        Entry e = from->second.front();
        from->second.erase(from->second.begin());
        // s comes after the giver's work up to the give-back; the wait
        // keeps what the event held when it was queued, so the event may
        // be recorded again from now on.
        CHECK(cudaStreamWaitEvent(s, e.done, 0));
        spare_.push_back(e.done);
        stolen++;
        return e.block;"""
DEALLOC_OLD = """        // TODO 2: keep p, with whatever another stream would need to
        // know before it may use p safely.
        (void)p;
        (void)s;"""
DEALLOC_NEW = """        // TODO 2: keep p, with whatever another stream would need to
        // know before it may use p safely.
        cudaEvent_t done;
        if (spare_.empty()) {
            CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
        } else {
            done = spare_.back();
            spare_.pop_back();
        }
        CHECK(cudaEventRecord(done, s));
        given_[s].push_back(Entry{static_cast<char*>(p), done, seq_++});"""
DTOR_OLD = """        // TODO 3: destroy what the pool made, then give the chunk back.
        CHECK(cudaFreeAsync(chunk_, setup_));"""
DTOR_NEW = """        // TODO 3: destroy what the pool made, then give the chunk back.
        for (auto& kv : given_)
            for (Entry& e : kv.second) CHECK(cudaEventDestroy(e.done));
        for (cudaEvent_t e : spare_) CHECK(cudaEventDestroy(e));
        given_.clear();
        spare_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));"""
PRIV_OLD = """    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.
};"""
PRIV_NEW = """    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.
    struct Entry {
        char* block;
        cudaEvent_t done;         // recorded on the giving stream at the give-back
        unsigned long long seq;   // the give-back's number, over all streams
    };
    std::map<cudaStream_t, std::vector<Entry>> given_;   // by giving stream, oldest first
    std::vector<cudaEvent_t> spare_;   // events no entry holds, to record again
    unsigned long long seq_ = 0;
};"""

CORRECT = [(ALLOC_OLD, ALLOC_NEW), (DEALLOC_OLD, DEALLOC_NEW), (DTOR_OLD, DTOR_NEW), (PRIV_OLD, PRIV_NEW)]

DESIGN = ("a list per GIVING stream (std::map of stream to a vector of entries, oldest first), each entry the block, an "
          "event recorded on the giver at its give-back and a give-back number counted over ALL streams; the events come "
          "from a STOCK of spare ones (made only when the stock is empty, so at most as many as blocks are ever listed at "
          "once) and go back to it at every take, own or stolen; an own take pops the stream's NEWEST entry with no wait; "
          "a steal takes the OLDEST give-back over all other streams (smallest number, each list's front), queues one "
          "cudaStreamWaitEvent on it and returns its event to the stock at once; the destructor destroys the listed events "
          "and the stock, then frees the chunk")

WRONGS = [
    ("stock-event-handed-out-without-taking-it-off",
     "the program's own exit status: an error from cudaEventDestroy when the pool ends (the same event destroyed again), "
     "after every line printed; and a race in the record at steals (an entry's event recorded again by a later give-back "
     "on another stream)",
     "deallocate takes an event from the stock with spare_.back() but forgets spare_.pop_back(), so the event stays in "
     "the stock while an entry holds it",
     "from then on every give-back records the same event, so a thief's wait is for whatever stream recorded it last, "
     "not for the block's giver; and the event appears in the stock and on the lists many times, so the destructor "
     "destroys it more than once",
     "related: torch/cutorch#222 (one event recorded on several streams: a wait on it covers only the last record)",
     [("            done = spare_.back();\n            spare_.pop_back();\n", "            done = spare_.back();\n")]),
    ("give-back-event-recorded-without-its-stream",
     "a race: the record at every steal (the thief's fill not ordered after the giver's work on the block); the errors "
     "count now and then, surely with SPIN_US",
     "deallocate calls cudaEventRecord(done) with no stream argument, so the event is recorded on the legacy default "
     "stream, not on s",
     "the four streams are non-blocking: nothing orders the legacy stream after their kernels, so the event is done at "
     "once and the thief's wait orders it after nothing",
     "related: alpaka-group/cupla#66 (an event recorded on stream zero taken to order other streams' work)",
     [("        CHECK(cudaEventRecord(done, s));", "        CHECK(cudaEventRecord(done));")]),
    ("steal-wait-skipped-while-the-giver-is-busy",
     "a race: the record at the steals whose giver still has the block's work queued (nearly all: the host runs far "
     "ahead of the GPU), the errors count now and then, surely with SPIN_US; every printed count right",
     "the steal asks cudaEventQuery first and queues the wait only when the query returns cudaSuccess, reading the "
     "answer the wrong way round (the wait was meant to be skipped only for work already done)",
     "cudaEventQuery returns cudaSuccess when the work before the record is done and cudaErrorNotReady while it is "
     "pending: the test waits exactly when no wait is needed and skips it when the block is still in use",
     "related: ROCm/hrx-system#377 (an event query whose completion convention is read the wrong way round)",
     [("        CHECK(cudaStreamWaitEvent(s, e.done, 0));",
       "        if (cudaEventQuery(e.done) == cudaSuccess) CHECK(cudaStreamWaitEvent(s, e.done, 0));")]),
    ("own-take-drops-its-event",
     "the record only: a leak of events, one for every own take (in the default run dozens); every printed line right",
     "an own take returns the block but neither puts its entry's event back in the stock nor destroys it",
     "the event is then held by nothing: it is never recorded again and never destroyed, and the next give-back makes "
     "a new one",
     "own",
     [("            mine->second.pop_back();\n            spare_.push_back(e.done);\n", "            mine->second.pop_back();\n")]),
]


def rows():
    return build("stream-ordered-pool", S, "h", CORRECT, DESIGN, WRONGS)
