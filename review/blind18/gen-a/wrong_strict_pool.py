WRONG = [
dict(slug='event-recorded-at-put-not-at-hand',
 shows='other arguments only (LATE 1): B\'s add reads the round\'s word before A\'s copy has written it (the copy sits after the put, behind busy), so the sums miss r + 1: \'0 of 6 rounds summed correctly\' or nearly; on the default run everything right',
 mistake='put records the stream\'s event right after its cudaFreeAsync, \'the block is what is handed\', and hand only queues to\'s wait on that record',
 why='hand must order to after everything from has queued so far, not only after its last put; work queued on from between the put and the hand (LATE\'s kernel and copy) is left out of the wait',
 source='own',
 edits=[('''    if (p != nullptr) note(cudaFreeAsync(p, s));
}''', '''    if (p == nullptr || !note(cudaFreeAsync(p, s))) return;
    cudaEvent_t e = event_of(s);
    if (e != nullptr) note(cudaEventRecord(e, s));
}'''),
        ('''    if (note(cudaEventRecord(e, from))) note(cudaStreamWaitEvent(to, e, 0));''',
         '''    note(cudaStreamWaitEvent(to, e, 0));''')]),
dict(slug='internal-dependencies-left-on',
 shows='default output: \'pool: opportunistic 0, internal dependencies 1\' (0 wanted); the rounds, reuse and sums right, since the hands order B after A anyway',
 mistake='the constructor\'s second set_policy line, copied from the first, turns off cudaMemPoolReuseAllowOpportunistic again, so internal dependencies keep the driver\'s default of on',
 why='with internal dependencies on, the driver may itself make a stream wait for another stream\'s free to hand it a block, a way across streams the program did not decide; the strict pool must turn both crossing policies off',
 source='own',
 edits=[('    set_policy(cudaMemPoolReuseAllowInternalDependencies, 0);',
         '    set_policy(cudaMemPoolReuseAllowOpportunistic, 0);')]),
dict(slug='from-stream-events-never-destroyed',
 shows='the record only: the two events made at A\'s and B\'s first hands are never destroyed (a leak of two events at the end); output right',
 mistake='the destructor destroys the pool and clears the list of (stream, event) pairs, \'the vector cleans up after itself\', without cudaEventDestroy on each event',
 why='clearing a std::vector of handles frees only the vector\'s own memory; every event the pool made must be destroyed, or it lives until the context goes',
 source='llnl/camp#71 (event wrappers that create CUDA events and never free them)',
 edits=[('    for (auto& se : events_) cudaEventDestroy(se.second);\n', '')]),
dict(slug='record-without-its-stream-argument',
 shows='default output: the record goes to the legacy default stream, which non-blocking streams do not join, so to waits for nothing of from\'s: B never gets A\'s block: \'0 of 6 rounds: B reused the block A freed\' and \'pool reserved at most 64 MiB for blocks of 32 MiB\'; with LATE 1 the sums may miss the words too',
 mistake='hand calls cudaEventRecord(e), the stream argument left to its C++ default of 0, \'the event records where the last work ran\'',
 why='an event records the work of the stream it is recorded on; with the stream left out it is the legacy default stream, which A and B (non-blocking) are not ordered with, so the wait puts B after nothing of A\'s',
 source='alpaka-group/cupla#66 (what an event recorded on stream zero orders, and what it does not)',
 edits=[('    if (note(cudaEventRecord(e, from))) note(cudaStreamWaitEvent(to, e, 0));',
         '    if (note(cudaEventRecord(e))) note(cudaStreamWaitEvent(to, e, 0));')]),
]
