WRONG = [
    dict(slug="events-made-without-the-interprocess-flag",
         shows="the program's own output: the parent's cudaIpcGetEventHandle fails (an event made without cudaEventInterprocess has no interprocess handle), exporter returns 1 before it sends the pool, the child finds no pool descriptor and fails: 'the child failed', 0 of 5 rounds on both lines, exit 1",
         mistake="the run's two events are made with cudaEventDisableTiming alone, 'timing off is what sharing needs', the cudaEventInterprocess flag left out",
         why="only an event created with cudaEventInterprocess (and timing off) can be exported with cudaIpcGetEventHandle; without it the parent has nothing to hand the child to wait on or record",
         source="own",
         edits=[("""    const unsigned flags = cudaEventDisableTiming | cudaEventInterprocess;""",
                 """    const unsigned flags = cudaEventDisableTiming;""")]),
    dict(slug="filled-recorded-after-the-childs-answer",
         shows="the program's own output: the child queues its wait on filled before the parent records it for the round (round 0: before any record, so no wait at all; later rounds: bound to the record made after the round before's answer, behind the fill before), so the use kernel reads each block before its 10 ms fill: 'the block was filled before the child read it' 0 (or nearly) of 5; the after line right; the record: every round's use not ordered after its fill",
         mistake="the parent records filled only once the child has answered, 'the child has to have the block before filled may say it is ready', instead of right behind the fill, before the block's data is sent",
         why="cudaStreamWaitEvent binds to the record that exists when it is called; the child calls it before it answers, so with the record made after the answer the child's kernel is ordered after the round before's fill, not this round's",
         source="related: sgl-project/sglang#14214 (a record that comes later than the wait meant to follow it: the wait does not see it)",
         edits=[("""        CHECK(cudaEventRecord(filled, s));
        cudaMemPoolPtrExportData data;""", """        cudaMemPoolPtrExportData data;"""),
                ("""        CHECK(cudaStreamWaitEvent(s, freed, 0));
        CHECK(cudaFreeAsync(block, s));""", """        CHECK(cudaEventRecord(filled, s));
        CHECK(cudaStreamWaitEvent(s, freed, 0));
        CHECK(cudaFreeAsync(block, s));""")]),
    dict(slug="child-synchronizes-before-it-answers",
         shows="the record: a host wait in the child every round (cudaStreamSynchronize of s: the wait for the 10 ms fill and the 30 ms use), and the parent, waiting for the answer, queues nothing meanwhile; every printed line right",
         mistake="before answering, the child calls cudaStreamSynchronize(s), 'so that the parent only frees a block the child is really done with'",
         why="the exercise forbids host waits during the rounds: the parent's GPU learns that the child is done from freed, recorded just before, so the host wait adds nothing but stalls both processes a round's GPU time",
         source="own",
         edits=[("""        if (!send_all(sock, &r, sizeof r)) {""", """        CHECK(cudaStreamSynchronize(s));
        if (!send_all(sock, &r, sizeof r)) {""")]),
    dict(slug="import-freed-on-the-legacy-stream",
         shows="the record: the child's free of each import, queued on the legacy default stream, is not ordered after its use kernel on the non-blocking s (a free while a kernel may still read); the printed lines most likely right (the parent's free still waits for freed, recorded on s after the use), unless the driver unmaps the import at once and the use kernel faults (then the child fails)",
         mistake="the child frees its import with cudaFreeAsync(block, 0), 'stream 0 is ordered with everything', instead of on s, where the use kernel runs",
         why="s was made with cudaStreamNonBlocking, so the legacy default stream does not wait for it: the import is given back while the kernel that reads it may still be queued or running",
         source="related: OpenPPL/ppl.cv#131 (a stream made with cudaStreamNonBlocking is not synchronized by work on the legacy default stream)",
         edits=[("""        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaEventRecord(freed, s));""", """        CHECK(cudaFreeAsync(block, 0));
        CHECK(cudaEventRecord(freed, s));""")]),
]
