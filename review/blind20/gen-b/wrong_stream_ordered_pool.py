WRONG = [
    dict(slug="steal-waits-on-the-takers-own-event",
         shows="a race, in the record at every steal (the taker's fill of the block not ordered after the giving stream's fill and check of it); the errors count now and then, surely with SPIN_US; the counts line right",
         mistake="the steal queues cudaStreamWaitEvent(s, lanes_[s].last, 0), the event of the TAKING stream's own lane, 'wait until my last give-back is done', instead of from->last, the event of the stream whose block it takes",
         why="s's own event marks only s's earlier work, which s's own order covers anyway; nothing puts s after the giver's last use of the block, so s's fill may land while the giver's check still reads the block",
         source="own",
         edits=[("""        CHECK(cudaStreamWaitEvent(s, from->last, 0));""", """        CHECK(cudaStreamWaitEvent(s, lanes_[s].last, 0));""")]),
    dict(slug="giver-event-recorded-only-at-its-first-give-back",
         shows="a race, in the record at nearly every steal after the first rounds (the wait binds to the giving stream's first give-back, long done, not to the give-back of the block taken); the errors count now and then, surely with SPIN_US; the counts line right",
         mistake="deallocate records the lane's event only in the branch that makes it, at the stream's first give-back: 'the event marks the stream, it only has to be made and recorded once'",
         why="a wait binds to the event's latest record; never recorded again, the event stays at the stream's first give-back, so a steal of a block given back later waits for nothing that uses that block",
         source="related: eyalroz/cuda-api-wrappers#226 (cudaStreamWaitEvent uses the event's most recent record at the time of the call; an event left unrecorded says nothing of later work)",
         edits=[("""        if (lane.last == nullptr) CHECK(cudaEventCreateWithFlags(&lane.last, cudaEventDisableTiming));
        CHECK(cudaEventRecord(lane.last, s));""", """        if (lane.last == nullptr) {
            CHECK(cudaEventCreateWithFlags(&lane.last, cudaEventDisableTiming));
            CHECK(cudaEventRecord(lane.last, s));
        }""")]),
    dict(slug="stolen-block-left-on-the-givers-list",
         shows="the program's own output and the record: a stolen block stays on its giver's lane, so the giver (or a later thief) takes it again while the thief still uses it: one block in use on two streams at once (the record), errors > 0 in most runs (two stamps written into one block while both streams check it), and the lane's list grows with duplicates",
         mistake="the steal reads the oldest block of the richest lane, from->blocks.front(), but never erases it from that lane",
         why="a block handed out must leave every free list; left on the giver's lane it is handed out twice, and the two holders write and check it at the same time",
         source="own",
         edits=[("""        from->blocks.erase(from->blocks.begin());
""", "")]),
    dict(slug="event-made-again-at-every-give-back",
         shows="the record only: a leak of events, every event made by a give-back except the last of each stream (in the default run 92 of the 96 give-backs' events: each of the four streams keeps only its last); every printed line right",
         mistake="deallocate calls cudaEventCreateWithFlags(&lane.last, ...) at every give-back, without the test that the lane has none yet, overwriting the handle of the event made before",
         why="each earlier event is lost without cudaEventDestroy; the destructor can only destroy the one handle each lane still holds",
         source="own",
         edits=[("""        if (lane.last == nullptr) CHECK(cudaEventCreateWithFlags(&lane.last, cudaEventDisableTiming));""",
                 """        CHECK(cudaEventCreateWithFlags(&lane.last, cudaEventDisableTiming));""")]),
]
