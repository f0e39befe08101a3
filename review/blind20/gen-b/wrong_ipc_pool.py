WRONG = [
    dict(slug="events-made-without-the-interprocess-flag",
         shows="the program's own output: the parent's first cudaIpcGetEventHandle fails (an event made without cudaEventInterprocess has no interprocess handle), exporter returns 1 in round 0, the child finds no events and fails: 'the child failed', 0 of 5 rounds on both lines, exit 1",
         mistake="each round's events are made with cudaEventDisableTiming alone, 'timing off is what sharing needs', the cudaEventInterprocess flag left out",
         why="only an event created with cudaEventInterprocess (and timing off) can be exported with cudaIpcGetEventHandle; without it the parent cannot hand the child anything to wait on",
         source="own",
         edits=[("""        const unsigned flags = cudaEventDisableTiming | cudaEventInterprocess;""",
                 """        const unsigned flags = cudaEventDisableTiming;""")]),
    dict(slug="filled-recorded-after-the-childs-answer",
         shows="the program's own output: the child queues its wait on filled before the parent has ever recorded it (a wait on a never-recorded event waits for nothing), so the use kernel reads the block before the 10 ms fill: 'the block was filled before the child read it' 0 (or nearly) of 5; the after line right; the record: every round's use not ordered after the fill",
         mistake="the parent records filled only once the child has answered, 'the child has to open the event before it is recorded, or it misses the record', instead of right behind the fill, before the block is sent",
         why="cudaStreamWaitEvent binds to the record that exists when it is called; the child calls it before answering, so with the record made after the answer the wait has nothing to wait for and the child's kernel is not ordered after the fill",
         source="related: sgl-project/sglang#14214 (a record that comes later than the wait meant to follow it: the wait does not see it)",
         edits=[("""        CHECK(cudaEventRecord(filled, s));
        RoundEvents h;""", """        RoundEvents h;"""),
                ("""        // The child's record of freed is queued (it answered after it), and
        // it has closed its handles of the round before's pair.
""", """        // The child's record of freed is queued (it answered after it), and
        // it has closed its handles of the round before's pair.
        CHECK(cudaEventRecord(filled, s));
""")]),
    dict(slug="child-synchronizes-before-it-answers",
         shows="the record: a host wait in the child every round (cudaStreamSynchronize of s, the 30 ms use and the wait for the 10 ms fill before it), and the parent, waiting for the answer, queues nothing meanwhile; every printed line right",
         mistake="before answering, the child calls cudaStreamSynchronize(s), 'so that the parent only frees a block the child is really done with'",
         why="the exercise forbids host waits during the rounds: the parent's GPU learns that the child is done from the freed event, recorded just before, so the host wait adds nothing but stalls both processes a round's GPU time",
         source="own",
         edits=[("""        if (!send_all(sock, &r, sizeof r)) {""", """        CHECK(cudaStreamSynchronize(s));
        if (!send_all(sock, &r, sizeof r)) {""")]),
    dict(slug="import-freed-on-the-legacy-stream",
         shows="the record: the child's free of each import, queued on the legacy default stream, is not ordered after its use kernel on the non-blocking s (a free while a kernel may still read); the printed lines most likely right (the parent's free still waits for freed, recorded on s after the use), unless the driver unmaps the import at once and the use kernel faults (then the child fails)",
         mistake="the child frees its import with cudaFreeAsync(block, 0), 'stream 0 is ordered with everything', instead of on s, where the use kernel runs",
         why="s was made with cudaStreamNonBlocking, so the legacy default stream does not wait for it: the import is given back while the kernel that reads it may still be queued or running",
         source="related: OpenPPL/ppl.cv#131 (work on a cudaStreamNonBlocking stream is not ordered with the legacy default stream)",
         edits=[("""        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaEventRecord(freed, s));""", """        CHECK(cudaFreeAsync(block, 0));
        CHECK(cudaEventRecord(freed, s));""")]),
]
