WRONG = [
 dict(slug="events-of-blocks-still-handed-out-leaked",
  where="other arguments only (--keep): a leak of events in the record; without --keep every block is free at the end and nothing leaks; the output is right",
  mistake="the destructor destroys the events of the blocks on the free map only (\"the pool's own blocks are the free ones\"), so the events of blocks still handed out when the pool ends are never destroyed",
  why="with --keep the last round's blocks are never given back, as the harness says a pool may allow; their events were made at earlier give-backs and are now lost: the pool does not destroy everything it made",
  source="own",
  edits=[("""        for (cudaEvent_t e : events_)
            if (e != nullptr) CHECK(cudaEventDestroy(e));""","""        for (auto& f : free_) {
            cudaEvent_t e = events_[index(f.first)];
            if (e != nullptr) CHECK(cudaEventDestroy(e));
        }""")]),
 dict(slug="last-free-block-never-stolen",
  where="other arguments only: with few blocks (BLOCKS 3 or 4) a stream, often the busy one taking its third block, finds one block free, another stream's, and gets nullptr; with the default 8 blocks at least five are free at every call, so it never shows",
  mistake="the steal branch runs only while more than one block is free (`free_.size() > 1`), an off-by-one meant to leave \"one block for its owner\"",
  why="allocate must return nullptr only when no block is free anywhere; a single free block of another stream is refused, so the harness stops with the pool had no block",
  source="own",
  edits=[("        if (!free_.empty()) {\n            auto it = free_.begin();","        if (free_.size() > 1) {\n            auto it = free_.begin();")]),
 dict(slug="event-recorded-only-when-the-block-changes-streams",
  where="race: in the default run (no --handoff) no give-back records its event, so every steal waits on an event never recorded (a no-op); the record whenever a block changes streams, the data now and then",
  mistake="deallocate records the block's event only when the give-back stream differs from the stream the block was last taken on (\"a same-stream give-back needs no event\"); the taking stream is kept in a second map",
  why="whether a later steal needs the event is decided at allocate time, by whoever takes the block next, not at give-back; a block given back on its own stream and then stolen is waited for through a stale or never-recorded event, so the stealing stream's fill can overwrite it while the giver's check still reads it",
  source="own",
  edits=[("""        CHECK(cudaEventRecord(events_[i], s));
        free_[b] = s;""","""        auto t = taker_.find(b);
        if (t == taker_.end() || t->second != s) CHECK(cudaEventRecord(events_[i], s));
        free_[b] = s;"""),
   ("""            if (it->second == s) {
                char* p = it->first;
                free_.erase(it);
                own++;""","""            if (it->second == s) {
                char* p = it->first;
                free_.erase(it);
                taker_[p] = s;
                own++;"""),
   ("""            fresh_.pop_back();
            fresh++;""","""            fresh_.pop_back();
            taker_[p] = s;
            fresh++;"""),
   ("""            free_.erase(it);
            stolen++;""","""            free_.erase(it);
            taker_[p] = s;
            stolen++;"""),
   ("    std::vector<cudaEvent_t> events_;\n","    std::vector<cudaEvent_t> events_;\n    std::map<char*, cudaStream_t> taker_;   // the stream each block was last taken on\n")]),
 dict(slug="steal-wait-queued-on-the-legacy-stream",
  where="race: the harness's streams are non-blocking, so the wait on the legacy default stream orders none of them; the record at every steal, the data now and then",
  mistake="the steal queues cudaStreamWaitEvent on stream 0 (the legacy default stream, \"the device's stream waits for everyone\") instead of on s",
  why="a wait binds only the stream it is queued on; the non-blocking streams do not synchronise with the legacy stream, so the stealing stream's fill is ordered after nothing of the giver",
  source="bheisler/RustaCUDA#59",
  edits=[("CHECK(cudaStreamWaitEvent(s, events_[index(p)], 0));","CHECK(cudaStreamWaitEvent(0, events_[index(p)], 0));")]),
]
