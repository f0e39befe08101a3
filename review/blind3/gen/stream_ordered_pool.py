STUDENT = "exercises/day088/stream_ordered_pool.h"
DIR = "stream-ordered-pool"
EXT = "h"
COMMENT = "//"
CORRECT_HEADER = {
    "kind": "correct",
    "mistake": "none: a free list per freeing stream and one event per stream, recorded on that stream at each deallocate; allocate takes the stream's own list first (no wait), then a fresh block, then the first other stream's freed block after cudaStreamWaitEvent on that stream's event; the destructor destroys the events before giving the chunk back.",
    "why it is wrong": "it is not: the design the lesson asks for (day088, \"The pool\"; day076's pool with a list per stream).",
    "source": "own (RMM's stream_ordered_memory_resource as the day076 lesson describes it)",
}
CORRECT = [
("""        // TODO 1: return a block s may use once it gets there in its own
        // order: nullptr only when no block is free anywhere, no wait on
        // the host, and own, fresh or stolen counted by where it came
        // from (a block s freed itself, one never used, another's).
        (void)s;
        return nullptr;""", """        std::vector<char*>& mine = free_[s];
        if (!mine.empty()) {   // s's own free: in s's order already
            char* p = mine.back();
            mine.pop_back();
            own++;
            return p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        for (auto& list : free_) {
            if (list.first == s || list.second.empty()) continue;
            char* p = list.second.back();
            list.second.pop_back();
            // The freeing stream's latest record comes after this block's free.
            CHECK(cudaStreamWaitEvent(s, events_.at(list.first), 0));
            stolen++;
            return p;
        }
        return nullptr;"""),
("""        // TODO 2: keep p, with whatever another stream would need to
        // know before it may use p safely.
        (void)p;
        (void)s;""", """        auto e = events_.find(s);
        if (e == events_.end()) {
            cudaEvent_t ev;
            CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
            e = events_.emplace(s, ev).first;
        }
        CHECK(cudaEventRecord(e->second, s));   // after the work queued on s so far
        free_[s].push_back(static_cast<char*>(p));"""),
("""        // TODO 3: destroy what the pool made, then give the chunk back.
        CHECK(cudaFreeAsync(chunk_, setup_));""", """        // TODO 3: destroy what the pool made, then give the chunk back.
        for (auto& e : events_) CHECK(cudaEventDestroy(e.second));
        events_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));"""),
("""    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.""", """    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.
    std::map<cudaStream_t, std::vector<char*>> free_;   // blocks by the stream that freed them
    std::map<cudaStream_t, cudaEvent_t> events_;        // each stream's event, recorded at its frees"""),
]

WRONG = [
    ("steal-waits-every-stream", {
        "kind": "waste: waits where no block changes hands (the streams are serialised more than needed)",
        "mistake": "on a steal, to be safe, the allocating stream waits for the event of every other stream that ever freed a block, not only the stream whose block it takes.",
        "why it is wrong": "only the freeing stream's work can still use the block; the other waits put the stream behind unrelated busy streams (the lesson: \"a block crosses streams only behind the work that freed it\"; \"a pool that waits where no block changes streams ... stretches that span or stops the streams overlapping\"). The data are right.",
        "source": "own",
    }, [
        ("""            // The freeing stream's latest record comes after this block's free.
            CHECK(cudaStreamWaitEvent(s, events_.at(list.first), 0));""",
         """            // Wait for every stream that freed blocks, to be safe.
            for (auto& e : events_)
                if (e.first != s) CHECK(cudaStreamWaitEvent(s, e.second, 0));"""),
    ]),
    ("wait-on-own-reuse", {
        "kind": "waste: a wait where no block changes hands",
        "mistake": "allocate makes s wait for its own event when it takes back a block it freed itself.",
        "why it is wrong": "s's order already puts its free before what it queues next (lesson: \"a stream's own frees cost nothing ... with no wait at all\"); the pool's waits are counted, and this one is in every own reuse. The data are right and the GPU barely notices.",
        "source": "own",
    }, [
        ("""            mine.pop_back();
            own++;""", """            mine.pop_back();
            CHECK(cudaStreamWaitEvent(s, events_.at(s), 0));   // after s's free of it
            own++;"""),
    ]),
    ("events-leaked", {
        "kind": "a leak",
        "mistake": "the destructor gives the chunk back but never destroys the events the pool made.",
        "why it is wrong": "TODO 3: \"destroy what the pool made, then give the chunk back\"; the hint: \"A leak at the end means something the pool made was not destroyed\". Nothing in the output shows it.",
        "source": "own",
    }, [
        ("""        for (auto& e : events_) CHECK(cudaEventDestroy(e.second));
        events_.clear();
""", ""),
    ]),
    ("cached-wait", {
        "kind": "race (an optimisation that skips waits it still needs)",
        "mistake": "the pool remembers that s has waited for stream t once and skips the wait on every later steal from t, though t has freed more blocks (and recorded its event again) since.",
        "why it is wrong": "the earlier wait only orders s after t's work up to that record; a block t freed later may still be used by t's newer kernels (Runtime API, cudaStreamWaitEvent: the wait is for the most recent record at the time of the call). With the busy stream moving every round, later steals from the same stream race; the data often come out right.",
        "source": "own",
    }, [
        ("""            // The freeing stream's latest record comes after this block's free.
            CHECK(cudaStreamWaitEvent(s, events_.at(list.first), 0));""",
         """            // s waits for t once; after that s is behind t already.
            if (!waited_[s][list.first]) {
                CHECK(cudaStreamWaitEvent(s, events_.at(list.first), 0));
                waited_[s][list.first] = true;
            }"""),
        ("""    std::map<cudaStream_t, cudaEvent_t> events_;        // each stream's event, recorded at its frees""",
         """    std::map<cudaStream_t, cudaEvent_t> events_;        // each stream's event, recorded at its frees
    std::map<cudaStream_t, std::map<cudaStream_t, bool>> waited_;   // s has waited for t"""),
    ]),
    ("merge-lists-no-record", {
        "kind": "race (a stale event after a list moves between streams)",
        "mistake": "on a steal, as RMM's pool does, s waits for the freeing stream's event and takes that stream's whole free list into its own, but does not record its own event again after the wait; later, a third stream that steals one of those blocks from s's list waits only on s's event (recorded before the wait, or never).",
        "why it is wrong": "s's event says nothing of the donor's work it waited for after its last record, so the third stream can reuse a block the donor's kernels still use (the lesson: \"a block crosses streams only behind the work that freed it\"). With four streams and the busy stream moving every round, blocks pass through a second stream; the data often come out right.",
        "source": "https://github.com/rapidsai/rmm/issues/2489 (merge_lists drops the dependency on the donor stream's in-flight work; fixed by https://github.com/rapidsai/rmm/pull/2490)",
    }, [
        ("""            char* p = list.second.back();
            list.second.pop_back();
            // The freeing stream's latest record comes after this block's free.
            CHECK(cudaStreamWaitEvent(s, events_.at(list.first), 0));
            stolen++;
            return p;""", """            // Wait for the freeing stream once, and take its whole list:
            // every block in it is behind that wait now.
            CHECK(cudaStreamWaitEvent(s, events_.at(list.first), 0));
            if (events_.find(s) == events_.end()) {
                cudaEvent_t ev;
                CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
                events_.emplace(s, ev);
            }
            std::vector<char*>& taken = free_[s];
            taken.insert(taken.end(), list.second.begin(), list.second.end());
            list.second.clear();
            char* p = taken.back();
            taken.pop_back();
            stolen++;
            return p;"""),
    ]),
]
