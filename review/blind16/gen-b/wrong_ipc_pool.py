WRONG = [
("interprocess-events-without-disable-timing",
 "the program's own output: the parent stops at the first cudaEventCreateWithFlags (invalid value); the child finds no event handles and fails",
 "the two events are made with cudaEventInterprocess alone, without cudaEventDisableTiming",
 "the runtime reference requires an interprocess event to be made with cudaEventDisableTiming as well; without it the event is refused, so neither process can order its GPU work after the other's",
 "own",
 [("CHECK(cudaEventCreateWithFlags(&filled, cudaEventDisableTiming | cudaEventInterprocess));\n        CHECK(cudaEventCreateWithFlags(&freed, cudaEventDisableTiming | cudaEventInterprocess));",
   "CHECK(cudaEventCreateWithFlags(&filled, cudaEventInterprocess));\n        CHECK(cudaEventCreateWithFlags(&freed, cudaEventInterprocess));")]),
("filled-recorded-on-the-legacy-stream",
 "the program's own output: the child reads each block before the 10 ms fill has run (the before line counts few or no rounds); the record: an unordered use",
 "the parent records filled with cudaEventRecord(filled, 0), on the default stream, instead of on s, where the fill is queued",
 "s is a non-blocking stream: the legacy default stream does not wait for it, so the record completes at once and the child's wait on filled orders its read after nothing of the fill",
 "own",
 [("        CHECK(cudaEventRecord(filled, s));\n", "        CHECK(cudaEventRecord(filled, 0));\n")]),
("block-sent-before-filled-is-recorded",
 "race: the child may queue its wait on filled before the parent records it for this round, binding to the record of the round before (none in round 0): the before line short now and then; the record: an unordered use",
 "the parent exports and sends the block first and records filled after send_all returns",
 "cudaStreamWaitEvent in the child waits for the record of filled that exists when the child calls it; the socket gives the child the block at once, so that call can come before the parent's record, and then the child's read is ordered after an older fill",
 "own",
 [('''        CHECK(cudaEventRecord(filled, s));
        cudaMemPoolPtrExportData data;
        CHECK(cudaMemPoolExportPointer(&data, block));
        if (!send_all(sock, &data, sizeof data)) { fprintf(stderr, "exporter: could not send round %d\\n", r); return 1; }
''', '''        cudaMemPoolPtrExportData data;
        CHECK(cudaMemPoolExportPointer(&data, block));
        if (!send_all(sock, &data, sizeof data)) { fprintf(stderr, "exporter: could not send round %d\\n", r); return 1; }
        CHECK(cudaEventRecord(filled, s));
''')]),
("freed-opened-from-the-filled-handle",
 "the program's own output (the after line: the parent frees the block at once, then refills it while the child still reads) and the record (a free not ordered after the child's read)",
 "the child opens both events from the first handle it receives (a copy-paste slip: cudaIpcOpenEventHandle(&freed, ...) gets filled's handle again); the second handle is read and ignored",
 "the child's freed is then the parent's filled: its record of freed marks filled, and the parent's own freed is never recorded, so the parent's wait on it does nothing and its free of the block is ordered after nothing the child did (if the driver refuses a second open of one handle, the child stops there instead and the output shows it)",
 "own",
 [('''        cudaIpcEventHandle_t h;
        if (!recv_all(sock, &h, sizeof h)) { fprintf(stderr, "importer: no handle for filled\\n"); return 1; }
        CHECK(cudaIpcOpenEventHandle(&filled, h));
        if (!recv_all(sock, &h, sizeof h)) { fprintf(stderr, "importer: no handle for freed\\n"); return 1; }
        CHECK(cudaIpcOpenEventHandle(&freed, h));
''', '''        cudaIpcEventHandle_t h, h2;
        if (!recv_all(sock, &h, sizeof h)) { fprintf(stderr, "importer: no handle for filled\\n"); return 1; }
        CHECK(cudaIpcOpenEventHandle(&filled, h));
        if (!recv_all(sock, &h2, sizeof h2)) { fprintf(stderr, "importer: no handle for freed\\n"); return 1; }
        CHECK(cudaIpcOpenEventHandle(&freed, h));
''')]),
]
