from mk import student, sub, build

T = student("exercises/day088/stream_ordered_pool.h")

ALLOC_OLD = """        // TODO 1: return a block s may use once it gets there in its own
        // order: nullptr only when no block is free anywhere, no wait on
        // the host, and own, fresh or stolen counted by where it came
        // from (a block s freed itself, one never used, another's).
        (void)s;
        return nullptr;"""
ALLOC_NEW = """        // s's own give-backs first, newest first: s's order already puts
        // their frees before anything s queues now, so their events are
        // not needed any more.
        auto mine = given_.find(s);
        if (mine != given_.end() && !mine->second.empty()) {
            Given g = mine->second.back();
            mine->second.pop_back();
            CHECK(cudaEventDestroy(g.done));
            own++;
            return g.p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        // Else the oldest block of the stream that holds the most given-back
        // blocks (the one least likely to need them back soon), behind a wait
        // on the GPU for the event recorded when it was given back.
        auto donor = given_.end();
        for (auto it = given_.begin(); it != given_.end(); ++it) {
            if (it->first == s || it->second.empty()) continue;
            if (donor == given_.end() || it->second.size() > donor->second.size()) donor = it;
        }
        if (donor == given_.end()) return nullptr;
        Given g = donor->second.front();
        donor->second.erase(donor->second.begin());
        CHECK(cudaStreamWaitEvent(s, g.done, 0));
        CHECK(cudaEventDestroy(g.done));   // released once the wait has passed it
        stolen++;
        return g.p;"""

DEALLOC_OLD = """        // TODO 2: keep p, with whatever another stream would need to
        // know before it may use p safely.
        (void)p;
        (void)s;"""
DEALLOC_NEW = """        // An event of its own for every give-back: made here, recorded on
        // the giving stream, destroyed when the block is taken again.
        cudaEvent_t done;
        CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
        CHECK(cudaEventRecord(done, s));
        given_[s].push_back(Given{static_cast<char*>(p), done});"""

DTOR_OLD = """        // TODO 3: destroy what the pool made, then give the chunk back.
        CHECK(cudaFreeAsync(chunk_, setup_));"""
DTOR_NEW = """        for (auto& kv : given_)
            for (auto& g : kv.second) CHECK(cudaEventDestroy(g.done));
        given_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));"""

PRIV_OLD = """    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.
};"""
PRIV_NEW = """    // A block given back, with the event recorded on its stream when it was.
    struct Given {
        char* p;
        cudaEvent_t done;
    };
    // The blocks given back, by the stream that gave them back, oldest first.
    std::map<cudaStream_t, std::vector<Given>> given_;
};"""

C = T
for o, n in [(ALLOC_OLD, ALLOC_NEW), (DEALLOC_OLD, DEALLOC_NEW), (DTOR_OLD, DTOR_NEW), (PRIV_OLD, PRIV_NEW)]:
    C = sub(C, o, n)

CORRECT = ("correct",
           "none: a fresh event for every give-back (made and recorded in deallocate, destroyed when the block is taken again or in the destructor), the blocks in a std::map from the giving stream to a vector, oldest first; allocate takes its own newest block (destroying its event, no wait), then a fresh one, then the oldest block of the stream holding the most given-back blocks behind a cudaStreamWaitEvent on that block's own event.",
           "none.",
           "none (written from the lesson and the student file).")

TAKER_PRIV = ("    std::map<cudaStream_t, std::vector<Given>> given_;\n};",
              "    std::map<cudaStream_t, std::vector<Given>> given_;\n    std::map<char*, cudaStream_t> taker_;   // the stream each block was handed to\n};")
TAKER_OWN = ("            own++;\n            return g.p;", "            own++;\n            taker_[g.p] = s;\n            return g.p;")
TAKER_FRESH = ("            fresh++;\n            return p;", "            fresh++;\n            taker_[p] = s;\n            return p;")
TAKER_STOLEN = ("        stolen++;\n        return g.p;", "        stolen++;\n        taker_[g.p] = s;\n        return g.p;")

W = [
    ("filed-under-the-stream-that-took-it",
     ("wrong (race only when a block is given back on another stream than the one that took it: bench --handoff, a hidden run)",
      "deallocate records the event on s, the giving stream, but files the block under the stream that took it (kept in a map at allocate), so that a stream finds 'its' blocks again.",
      "with --handoff a block taken by stream i is read and given back on stream i+1; filed under i, it comes back to i as its own, with no wait, while i+1's check kernel may still read it; the default run frees every block on the stream that took it, where both rules agree.",
      "pytorch/pytorch#109863 (the caching allocator files a block under its allocation stream; a free on another stream needs record_stream, or the block is reused in the wrong stream's order), NVIDIA/cccl#878 (CUB's allocator reuses a block without a wait when the stream handle matches the one it was associated with)"),
     [TAKER_PRIV, TAKER_OWN, TAKER_FRESH, TAKER_STOLEN,
      ("        given_[s].push_back(Given{static_cast<char*>(p), done});",
       "        given_[taker_[static_cast<char*>(p)]].push_back(Given{static_cast<char*>(p), done});")]),
    ("event-recorded-only-for-a-handed-off-block",
     ("wrong (race: every steal of a block given back on the stream that took it waits for nothing; the data show it with bench's SPIN)",
      "deallocate records the block's event only when the giving stream is not the one that took the block, reasoning that a block given back where it was used goes back to that stream in its own order and needs no event.",
      "the block may still be stolen by another stream: the steal then waits on an event that was never recorded, which cudaStreamWaitEvent treats as already complete, so the taker's fill can overwrite the block while the giver's check still reads it; in the default run every block is given back on the stream that took it, so no steal is ordered at all.",
      "shader-slang/slang-rhi#626 (a caching allocator's 'lazy events': single-stream use skips the event, cross-stream use must record one), pytorch/pytorch#109863 (events recorded only for streams a block was used on)"),
     [TAKER_PRIV, TAKER_OWN, TAKER_FRESH, TAKER_STOLEN,
      ("        CHECK(cudaEventRecord(done, s));\n",
       "        if (taker_[static_cast<char*>(p)] != s) CHECK(cudaEventRecord(done, s));\n")]),
    ("own-reuse-drops-its-event",
     ("wrong (leak: one event a block a stream takes back from its own list)",
      "when a stream takes back one of its own blocks, the block's event is dropped with the list entry instead of destroyed (only steals and the destructor destroy events).",
      "every give-back makes an event; those of the blocks reused by their own stream (66 of the 96 give-backs of the default run, by a model of bench) are never destroyed, so the events the pool made outnumber those it destroyed, a leak that grows with the rounds.",
      "candle-org/candle#165 (a caching allocator that created an event at every free and dropped the completed ones without destroying them), tromp/cuckoo#69 (cudaEventCreate without cudaEventDestroy)"),
     [("            mine->second.pop_back();\n            CHECK(cudaEventDestroy(g.done));\n",
       "            mine->second.pop_back();\n")]),
    ("steal-takes-the-newest-waits-the-oldest",
     ("wrong (race: a steal's wait covers an older give-back than the block it takes; the data show it only with bench's SPIN and a donor holding two or more blocks)",
      "a steal takes the donor's newest block (the most recently used, likely still in cache) but queues the wait on the event of the donor's oldest give-back, reasoning that one stream's events complete in order, and destroys the taken block's own event.",
      "the oldest event completes first, not last: it says nothing of the work queued on the donor after it, so the taker may write the newest block while the donor's kernels still read it; the steals of the default run take from donors holding two to four blocks, so most are unordered, and the record shows a reuse with no order back to the last use.",
      "NVIDIA/cub#156 (the caching allocator's ready event did not stand for the block's own last use: another stream claimed a block still in use), pytorch/pytorch#109863 (an event recorded for each stream a block was used on, not one for the stream's earlier work)"),
     [("""        Given g = donor->second.front();
        donor->second.erase(donor->second.begin());
        CHECK(cudaStreamWaitEvent(s, g.done, 0));
        CHECK(cudaEventDestroy(g.done));   // released once the wait has passed it""",
       """        Given g = donor->second.back();
        donor->second.pop_back();
        // The donor's events complete in the order they were recorded: the
        // oldest one still listed stands for the donor's work.
        CHECK(cudaStreamWaitEvent(s, donor->second.empty() ? g.done : donor->second.front().done, 0));
        CHECK(cudaEventDestroy(g.done));""")]),
]

build("stream-ordered-pool", "h", "//", C, CORRECT, W)
