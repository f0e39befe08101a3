ID = "stream-ordered-pool"
SRC = "exercises/day088/stream_ordered_pool.h"
NOTE = "Correct design: an event per BLOCK (made the first time the block is freed, at most one per block), recorded on the freeing stream; free lists per stream hold block indices; a steal takes the block freed longest ago on another stream (a global free sequence number) and queues cudaStreamWaitEvent on its event, except when cudaEventQuery already says that event is complete, where no wait is needed (the host has seen the work done). This last point deliberately probes whether the grader's race tracking accepts an ordering the host observed. The file replaces exercises/day088/stream_ordered_pool.h; builds with bench.cu."
def H(kind, mistake, why, source):
    return {"kind": kind, "mistake": mistake, "why it is wrong": why, "source": source}
E = [
("""        // TODO 1: serve s from its own free list first (no wait needed:
        // s's order already follows its own frees), then from the fresh
        // blocks, then steal another stream's freed block, making s wait
        // on the GPU for the event recorded when it was freed.
        (void)s;
        return nullptr;
    }""", """        std::vector<int>& mine = free_[s];
        if (!mine.empty()) {
            const int b = mine.back();
            mine.pop_back();
            own++;
            return chunk_ + (size_t)b * block_;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        // Steal the block freed longest ago on another stream: the likeliest
        // to be done already.
        std::vector<int>* from = nullptr;
        size_t at = 0;
        for (auto& f : free_) {
            if (f.first == s) continue;
            for (size_t k = 0; k < f.second.size(); k++) {
                const int b = f.second[k];
                if (from == nullptr || seq_[b] < seq_[(*from)[at]]) {
                    from = &f.second;
                    at = k;
                }
            }
        }
        if (from == nullptr) return nullptr;   // no block free anywhere
        const int b = (*from)[at];
        from->erase(from->begin() + at);
        const cudaError_t q = cudaEventQuery(events_[b]);
        if (q == cudaErrorNotReady) {
            CHECK(cudaStreamWaitEvent(s, events_[b], 0));   // on the GPU: the host goes on
        } else {
            CHECK(q);   // complete: the work that freed it is over, no wait to queue
        }
        stolen++;
        return chunk_ + (size_t)b * block_;
    }"""),
("""        // TODO 2: put p on s's free list with what another stream must
        // wait for before reusing it.
        (void)p;
        (void)s;
    }""", """        const int b = (int)((static_cast<char*>(p) - chunk_) / block_);
        if (events_.empty()) events_.assign(count(), nullptr);
        if (events_[b] == nullptr) CHECK(cudaEventCreateWithFlags(&events_[b], cudaEventDisableTiming));
        CHECK(cudaEventRecord(events_[b], s));
        if (seq_.empty()) seq_.assign(count(), 0);
        seq_[b] = ++clock_;
        free_[s].push_back(b);
    }"""),
("""        // TODO 3: destroy what the pool made, then give the chunk back.
        CHECK(cudaFreeAsync(chunk_, setup_));""", """        for (cudaEvent_t e : events_)
            if (e != nullptr) CHECK(cudaEventDestroy(e));
        CHECK(cudaFreeAsync(chunk_, setup_));"""),
("""    // TODO 0: what the pool keeps: a free list per stream, and with each
    // freed block what a stealing stream must wait for.
};""", """    std::map<cudaStream_t, std::vector<int>> free_; // per stream: blocks it freed, by index
    std::vector<cudaEvent_t> events_;  // per block: recorded on the stream that freed it last
    std::vector<unsigned long long> seq_; // per block: when it was freed last
    unsigned long long clock_ = 0;
    // count is how many blocks the chunk holds.
    int count() const { return (int)fresh_.size() + fresh; } // every block leaves fresh_ once
};"""),
]
CORRECT = (H("correct", "None intended: an event per block, per-stream lists of block indices, steal the oldest free block of another stream with cudaStreamWaitEvent (skipped when cudaEventQuery says the event is already complete).", "n/a", "own"), E)
WRONGS = [
 ("record-on-setup-stream",
  H("event recorded on the wrong stream",
    "deallocate records the block's event on setup_, the stream the pool was made on, instead of the freeing stream s. setup_ is one of the four streams (stream 0), so for blocks freed on stream 0 it is right and the event is complete for the others as soon as stream 0's own work is done: a thief waits for the wrong stream and may overwrite a block whose check kernel still reads it.",
    "Day 87, 'Capstone' (stealing through events): the thief waits for 'the event recorded on that stream at the free'.",
    "own"),
  [("""        CHECK(cudaEventRecord(events_[b], s));""", """        CHECK(cudaEventRecord(events_[b], setup_)); // the pool's stream""")]),
 ("wait-swapped",
  H("the wrong stream waits",
    "When it steals, allocate makes the stream that freed the block wait for its own event, instead of making the thief s wait. The call reads naturally ('the owner's stream waits on its event') and costs nothing, but s is not ordered after the kernels that still read the block.",
    "Day 87, 'Capstone': stealing 'waits for the event recorded on that stream at the free, on the GPU (cudaStreamWaitEvent)': the stealing stream is the one that must wait.",
    "own"),
  [("""        std::vector<int>* from = nullptr;
        size_t at = 0;""", """        std::vector<int>* from = nullptr;
        cudaStream_t owner = nullptr;
        size_t at = 0;"""),
   ("""                if (from == nullptr || seq_[b] < seq_[(*from)[at]]) {
                    from = &f.second;
                    at = k;""", """                if (from == nullptr || seq_[b] < seq_[(*from)[at]]) {
                    from = &f.second;
                    owner = f.first;
                    at = k;"""),
   ("""            CHECK(cudaStreamWaitEvent(s, events_[b], 0));   // on the GPU: the host goes on""",
    """            CHECK(cudaStreamWaitEvent(owner, events_[b], 0));   // the owner finishes with it first""")]),
 ("record-once",
  H("an event recorded only when it is made",
    "The event of a block is recorded only in the branch that creates it, the first time the block is freed. From the second free of a block on, the event still marks the first free's work, long done, so a thief's wait (or the query that skips it) lets the block go while the latest freeing stream's check kernel still reads it. The first rounds are right.",
    "Day 87, 'Capstone': the thief waits for the event recorded at the free (a wait takes the event's latest record: Day 70, 'One event, recorded for every chunk').",
    "own"),
  [("""        if (events_[b] == nullptr) CHECK(cudaEventCreateWithFlags(&events_[b], cudaEventDisableTiming));
        CHECK(cudaEventRecord(events_[b], s));""", """        if (events_[b] == nullptr) {
            CHECK(cudaEventCreateWithFlags(&events_[b], cudaEventDisableTiming));
            CHECK(cudaEventRecord(events_[b], s));
        }""")]),
 ("poll-steal",
  H("host wait disguised",
    "When it steals, allocate loops on cudaEventQuery of the block's event until it is complete, 'so the block is really free', instead of queueing a wait on the GPU. No synchronisation API appears in the pool, yet the host stops at every steal and the stealing stream's next launches are queued late.",
    "Day 87, 'Capstone': 'the host never waits'; the check counts every host wait.",
    "https://forums.developer.nvidia.com/t/cpu-spins-while-waiting-for-gpu-to-finish-computation/241672 (host spinning on the GPU's progress)"),
  [("""        const cudaError_t q = cudaEventQuery(events_[b]);
        if (q == cudaErrorNotReady) {
            CHECK(cudaStreamWaitEvent(s, events_[b], 0));   // on the GPU: the host goes on
        } else {
            CHECK(q);   // complete: the work that freed it is over, no wait to queue
        }""", """        while (cudaEventQuery(events_[b]) == cudaErrorNotReady) {
        } // the other stream is done with it now""")]),
 ("event-per-free",
  H("events made on the hot path and leaked",
    "deallocate creates a new event for every free and destroys the block's previous one only when the block is stolen. Own-list reuses and the blocks left on the lists at the end keep events nobody destroys, and each free costs an event creation.",
    "Day 87, exercise: the destructor destroys 'what the pool made'; Day 70: one event can be recorded again for every use, since a wait takes its mark when queued.",
    "own"),
  [("""        if (events_[b] == nullptr) CHECK(cudaEventCreateWithFlags(&events_[b], cudaEventDisableTiming));
        CHECK(cudaEventRecord(events_[b], s));""", """        CHECK(cudaEventCreateWithFlags(&events_[b], cudaEventDisableTiming)); // fresh for this free
        CHECK(cudaEventRecord(events_[b], s));"""),
   ("""        stolen++;
        return chunk_ + (size_t)b * block_;""", """        CHECK(cudaEventDestroy(events_[b])); // the wait is queued: the event is done with
        events_[b] = nullptr;
        stolen++;
        return chunk_ + (size_t)b * block_;"""),
   ("""        for (cudaEvent_t e : events_)
            if (e != nullptr) CHECK(cudaEventDestroy(e));
        CHECK(cudaFreeAsync(chunk_, setup_));""", """        CHECK(cudaFreeAsync(chunk_, setup_));""")]),
]
