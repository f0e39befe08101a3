ID = "stream-ordered-pool"
DIR = "stream-ordered-pool-b"
SRC = "exercises/day087/stream_ordered_pool.h"
NOTE = "A second blind set for stream-ordered-pool, written later by another helper from the lesson, `stream_ordered_pool.h` and `bench.cu` alone, without sight of the first set (`../stream-ordered-pool/`) beyond its file names. Each file replaces `exercises/day087/stream_ordered_pool.h` and compiles with `bench.cu`. Correct design: one event per block, made at the block's first free and recorded again at each free (a block is on one free list at a time, so its event's last record is its free); a stream's own list is taken last-freed first; a steal takes the block freed longest ago anywhere (a sequence number on each free), the one most likely done, and makes the stealing stream wait for that block's event."


def H(kind, mistake, why, source):
    return {"kind": kind, "mistake": mistake, "why it is wrong": why, "source": source}


ALLOC = """        std::vector<Freed>& mine = free_[s];
        if (!mine.empty()) {   // s's order already follows its own free
            char* p = mine.back().p;
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
        // Steal the block freed longest ago, whichever stream freed it: its
        // free is the most likely to be done already, so the wait costs least.
        std::vector<Freed>* from = nullptr;
        size_t at = 0;
        for (auto& kv : free_) {
            for (size_t i = 0; i < kv.second.size(); i++) {
                if (from == nullptr || kv.second[i].seq < (*from)[at].seq) {
                    from = &kv.second;
                    at = i;
                }
            }
        }
        if (from == nullptr) return nullptr;   // no block free anywhere
        char* p = (*from)[at].p;
        from->erase(from->begin() + at);
        CHECK(cudaStreamWaitEvent(s, events_.at(p), 0));   // on the GPU: the host goes on
        stolen++;
        return p;"""

FREE = """        char* b = static_cast<char*>(p);
        cudaEvent_t& e = events_[b];   // the block's own event, made at its first free
        if (e == nullptr) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        CHECK(cudaEventRecord(e, s));   // done when the work queued on s so far is
        free_[s].push_back(Freed{b, ++seq_});"""

E = [
("""        // TODO 1: serve s from its own free list first (no wait needed:
        // s's order already follows its own frees), then from the fresh
        // blocks, then steal another stream's freed block, making s wait
        // on the GPU for the event recorded when it was freed.
        (void)s;
        return nullptr;""", ALLOC),
("""        // TODO 2: put p on s's free list with what another stream must
        // wait for before reusing it.
        (void)p;
        (void)s;""", FREE),
("""        // TODO 3: destroy what the pool made, then give the chunk back.
        CHECK(cudaFreeAsync(chunk_, setup_));""", """        for (auto& kv : events_) CHECK(cudaEventDestroy(kv.second));
        events_.clear();
        free_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));"""),
("""    // TODO 0: what the pool keeps: a free list per stream, and with each
    // freed block what a stealing stream must wait for.
};""", """    struct Freed {
        char* p;
        unsigned long long seq;   // when it was freed, across all streams
    };
    std::map<cudaStream_t, std::vector<Freed>> free_;   // per stream, last freed at the back
    std::map<char*, cudaEvent_t> events_;   // per block: recorded at its last free
    unsigned long long seq_ = 0;
};"""),
]

CORRECT = (H("correct",
             "None intended: free lists per stream in a map; an event per block, recorded again at each free; own list first (last freed first), then fresh blocks, then the block freed longest ago on any stream, with a GPU wait on its event; the events destroyed with the pool.",
             "Correct: a block taken from its freeing stream's own list needs no wait (that stream's later work follows its free); a stolen block's event was last recorded at its free, so cudaStreamWaitEvent orders the stealing stream after every use before the free, whatever the block's later records (a wait takes the event as it is when the wait is queued); fresh blocks were never used; nullptr only when no list holds a block. No host wait anywhere.",
             "own; the policy of stealing through events: RMM's pool memory resource (the lesson)"),
           E)

WRONGS = [
("wait-other-block-event",
 H("a steal that waits for another block's event (output identical, mostly)",
   "The steal finds the stream whose list holds the block freed longest ago, but then takes that list's last block (the most recently freed, 'the one still in cache') while it waits for the event of the list's first block, the one it meant to take: two ends of one list mixed up.",
   "When that list holds more than one block, the block handed out was freed after the one whose event is waited for: the stealing stream is ordered after the earlier free only, and may write the block while the kernels queued before its own free (the check) still read it. Frees on one stream come in order and the blocks' kernels are short, so the counted errors are 0 on most runs; a race tracker that follows each block's events sees it.",
   "own (the two ends of one list mixed up)"),
 [("""        char* p = (*from)[at].p;
        from->erase(from->begin() + at);
        CHECK(cudaStreamWaitEvent(s, events_.at(p), 0));   // on the GPU: the host goes on""",
   """        (void)at;
        char* p = from->back().p;   // the most recently freed: still in cache
        CHECK(cudaStreamWaitEvent(s, events_.at(from->front().p), 0));   // on the GPU: the host goes on
        from->pop_back();""")]),
("record-at-allocate",
 H("the block's event recorded when it is handed out (output identical, mostly)",
   "The event is recorded in allocate, on the stream that takes the block ('the event marks who has the block now'), and deallocate only puts the block on the list.",
   "An event recorded at the allocation is complete before the kernels that use the block have run: a stream that steals the block waits for that point only, not for the fill and check queued after it, so it may write the block while the other stream's check still reads it. The own-list path needs no event and the waits are still queued, so the output is right when the kernels are short.",
   "https://forums.developer.nvidia.com/t/when-event-changes-its-state-from-notready-to-recording-cudaeventrecord-stream/6669 (what a recorded event stands for); the mistake is own"),
 [("""        if (!mine.empty()) {   // s's order already follows its own free
            char* p = mine.back().p;
            mine.pop_back();
            own++;
            return p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }""", """        if (!mine.empty()) {   // s's order already follows its own free
            char* p = mine.back().p;
            mine.pop_back();
            own++;
            mark(p, s);
            return p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            mark(p, s);
            return p;
        }"""),
  ("""        stolen++;
        return p;""", """        stolen++;
        mark(p, s);
        return p;"""),
  (FREE, """        free_[s].push_back(Freed{static_cast<char*>(p), ++seq_});"""),
  ("""    unsigned long long seq_ = 0;
};""", """    unsigned long long seq_ = 0;
    // mark records the block's event on the stream that now has it.
    void mark(char* b, cudaStream_t s) {
        cudaEvent_t& e = events_[b];
        if (e == nullptr) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        CHECK(cudaEventRecord(e, s));
    }
};""")]),
("batch-steal-one-wait",
 H("a batch steal that waits for one block of the batch (output identical, mostly)",
   "To steal less often, a steal takes every block of the victim stream's list: it returns the oldest, waits for its event, and moves the others to the stealing stream's own list, from which they are later served with no wait ('they are mine now, and I waited for that stream').",
   "The wait covers the victim's work up to the oldest block's free only; the blocks freed after it on that stream may still be used by kernels queued between the two frees, and the stealing stream takes them from its own list with no wait at all. Waiting for the newest of the moved blocks' events would have covered them all. The kernels are short, so the errors are 0 on most runs.",
   "own (a batching optimisation, as allocators that refill a thread's cache from a shared list make)"),
 [("""        char* p = (*from)[at].p;
        from->erase(from->begin() + at);
        CHECK(cudaStreamWaitEvent(s, events_.at(p), 0));   // on the GPU: the host goes on""", """        char* p = (*from)[at].p;
        from->erase(from->begin() + at);
        CHECK(cudaStreamWaitEvent(s, events_.at(p), 0));   // on the GPU: the host goes on
        // Take the rest of that stream's blocks too: they are s's now, and s
        // has waited for that stream.
        if (from != &mine) {
            mine.insert(mine.end(), from->begin(), from->end());
            from->clear();
        }""")]),
("own-list-of-allocator",
 H("a block freed on another stream than its allocator's, put on the allocator's list: a branch the harness never takes",
   "The pool remembers which stream each block was handed to, and deallocate puts the block back on that stream's list (recording the event on the freeing stream as asked): 'the block is that stream's'.",
   "When a block is freed on another stream than the one that took it, the event is recorded on the freeing stream but the block goes on the allocating stream's own list, from which it is handed out with no wait: the allocating stream may then write it while the freeing stream's work still uses it. bench.cu always frees a block on the stream that took it, so with the course's harness the two lists are the same and nothing shows.",
   "own (issue 36's kind 'a block reused on the stream that allocated it after another stream freed it')"),
 [("""        CHECK(cudaEventRecord(e, s));   // done when the work queued on s so far is
        free_[s].push_back(Freed{b, ++seq_});""", """        CHECK(cudaEventRecord(e, s));   // done when the work queued on s so far is
        auto owner = owner_.find(b);   // back to the stream it was handed to
        free_[owner != owner_.end() ? owner->second : s].push_back(Freed{b, ++seq_});"""),
  ("""            char* p = mine.back().p;
            mine.pop_back();
            own++;
            return p;""", """            char* p = mine.back().p;
            mine.pop_back();
            own++;
            owner_[p] = s;
            return p;"""),
  ("""            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;""", """            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            owner_[p] = s;
            return p;"""),
  ("""        stolen++;
        return p;""", """        stolen++;
        owner_[p] = s;
        return p;"""),
  ("""    unsigned long long seq_ = 0;
};""", """    unsigned long long seq_ = 0;
    std::map<char*, cudaStream_t> owner_;   // the stream each block was handed to
};""")]),
("wait-on-setup-stream",
 H("the steal's wait queued on the pool's own stream (output identical, mostly)",
   "The steal queues its wait on setup_, 'the pool's stream', instead of on the stream that takes the block.",
   "setup_ is the stream the chunk was allocated on (s[0] in bench.cu), not the stream that will use the stolen block: the stealing stream is not ordered after the free, and s[0] is made to wait for nothing it needs. When s[0] itself steals, the wait is right, which hides the mistake a quarter of the time; otherwise the stealing stream may write the block while its last user still reads it.",
   "own (the pool keeps one stream of its own, which looks like the one to wait on)"),
 [("""        CHECK(cudaStreamWaitEvent(s, events_.at(p), 0));   // on the GPU: the host goes on""",
   """        CHECK(cudaStreamWaitEvent(setup_, events_.at(p), 0));   // the pool's stream waits""")]),
]
