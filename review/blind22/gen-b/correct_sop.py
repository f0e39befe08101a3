import sys; sys.path.insert(0, "gen-b")
from fill import fill
H = ["kind: correct",
     "mistake: none. Design: a give-back only files the block under its giving stream (std::map of stream to a vector of blocks, oldest first) and records NOTHING; the event is recorded at the STEAL, on the giving stream, at that moment (its queue then holds every piece of work queued before the give-back, and perhaps more: the thief may wait longer, never too little), and the thief's wait is queued right after; one event per giving stream (std::map), made at its first steal and recorded again at each later one (a wait binds to the record before it); own takes (newest first) and fresh blocks need no event at all; the destructor destroys the events",
     "why it is wrong: -",
     "source: own"]
E = [("""        // TODO 1: return a block s may use once it gets there in its own
        // order: nullptr only when no block is free anywhere, no wait on
        // the host, and own, fresh or stolen counted by where it came
        // from (a block s freed itself, one never used, another's).
        (void)s;
        return nullptr;""", """        // TODO 1: return a block s may use once it gets there in its own
        // order: nullptr only when no block is free anywhere, no wait on
        // the host, and own, fresh or stolen counted by where it came
        // from (a block s freed itself, one never used, another's).
        auto mine = given_.find(s);
        if (mine != given_.end() && !mine->second.empty()) {
            char* p = mine->second.back();   // s's own order covers it: no wait
            mine->second.pop_back();
            own++;
            return p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        for (auto& kv : given_) {
            if (kv.first == s || kv.second.empty()) continue;
            char* p = kv.second.front();    // the giver's oldest
            kv.second.erase(kv.second.begin());
            // Everything the giver had queued before it gave p back is in
            // its queue now: an event recorded there now follows it.
            cudaEvent_t& ev = marks_[kv.first];
            if (ev == nullptr) CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
            CHECK(cudaEventRecord(ev, kv.first));
            CHECK(cudaStreamWaitEvent(s, ev, 0));
            stolen++;
            return p;
        }
        return nullptr;"""),
("""        // TODO 2: keep p, with whatever another stream would need to
        // know before it may use p safely.
        (void)p;
        (void)s;""", """        // TODO 2: keep p, with whatever another stream would need to
        // know before it may use p safely: the stream, nothing more (the
        // event is recorded if and when another stream takes p).
        given_[s].push_back(static_cast<char*>(p));"""),
("""        // TODO 3: destroy what the pool made, then give the chunk back.
""", """        // TODO 3: destroy what the pool made, then give the chunk back.
        for (auto& kv : marks_)
            if (kv.second != nullptr) CHECK(cudaEventDestroy(kv.second));
        marks_.clear();
        given_.clear();
"""),
("""    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.
""", """    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.
    std::map<cudaStream_t, std::vector<char*>> given_;   // by giving stream, oldest first
    std::map<cudaStream_t, cudaEvent_t> marks_;           // a giving stream's event, recorded at steals
"""),
]
fill("/work/main/exercises/day088/stream_ordered_pool.h", "stream-ordered-pool/correct.h", H, E)
