ID = "ipc-pool"
SRC = "exercises/day073/ipc_pool.cu"
NOTE = "Correct design: the parent makes both events (interprocess, no timing) and sends both handles in one message after the pool's descriptor; each round the parent records `filled` before sending the export data, waits on the socket (not the GPU) for the child's byte, makes its stream wait for `freed` and frees the block; the child imports the block, waits for `filled` on its stream, reads, frees the import with cudaFreeAsync, records `freed` after that free and answers."
def H(kind, mistake, why, source):
    return {"kind": kind, "mistake": mistake, "why it is wrong": why, "source": source}
E = [
("""    // TODO 3: receive the pool's descriptor and import the pool; open
    // the events the parent shares (or share one of your own).
    for (int r = 0; r < rounds; r++) {""", """    const int fd = recv_fd(sock);
    if (fd < 0) { fprintf(stderr, "importer: no pool descriptor came\\n"); return 1; }
    CHECK(cudaMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0));
    close(fd);
    cudaIpcEventHandle_t handles[2];
    if (!recv_all(sock, handles, sizeof handles)) { fprintf(stderr, "importer: no event handles came\\n"); return 1; }
    CHECK(cudaIpcOpenEventHandle(&filled, handles[0]));
    CHECK(cudaIpcOpenEventHandle(&freed, handles[1]));
    for (int r = 0; r < rounds; r++) {"""),
("""        // TODO 4: import the block; the kernel below must not start
        // before the parent's fill of it is done.""", """        CHECK(cudaMemPoolImportPointer((void**)&block, pool, &data));
        // The parent recorded `filled` before it sent the data, so this
        // wait takes this round's record.
        CHECK(cudaStreamWaitEvent(s, filled, 0));"""),
("""        // TODO 5: give the block back: free the import, let the parent's
        // GPU know when that is done, and answer the parent, all without
        // waiting here for the kernel.
    }""", """        CHECK(cudaFreeAsync(block, s));       // after use, in s's order
        CHECK(cudaEventRecord(freed, s));     // after the import's free
        const char answer = 'k';
        if (!send_all(sock, &answer, 1)) return 1;
    }"""),
("""    // TODO 1: make a pool on device 0 that can be exported as a POSIX
    // file descriptor, and send it to the child; make the events the two
    // processes order their GPU work with, and send the child what it
    // needs to open them.
    for (int r = 0; r < rounds; r++) {""", """    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    CHECK(cudaMemPoolCreate(&pool, &props));
    int fd = -1;
    CHECK(cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
    const bool sent = send_fd(sock, fd);
    close(fd);   // the child has its own descriptor now
    if (!sent) { fprintf(stderr, "exporter: could not send the pool\\n"); return 1; }
    CHECK(cudaEventCreateWithFlags(&filled, cudaEventInterprocess | cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&freed, cudaEventInterprocess | cudaEventDisableTiming));
    cudaIpcEventHandle_t handles[2];
    CHECK(cudaIpcGetEventHandle(&handles[0], filled));
    CHECK(cudaIpcGetEventHandle(&handles[1], freed));
    if (!send_all(sock, handles, sizeof handles)) return 1;
    for (int r = 0; r < rounds; r++) {"""),
("""        // TODO 2: hand the block to the child, and free it once the
        // child's GPU is done with it and its import; the host waits
        // for neither GPU.
    }""", """        CHECK(cudaEventRecord(filled, s));    // before the message that lets the child wait
        cudaMemPoolPtrExportData data;
        CHECK(cudaMemPoolExportPointer(&data, block));
        if (!send_all(sock, &data, sizeof data)) return 1;
        // The child's byte says its wait, read, free and record of
        // `freed` are queued: a host-to-host message, no GPU wait.
        char answer = 0;
        if (!recv_all(sock, &answer, 1)) { fprintf(stderr, "exporter: no answer in round %d\\n", r); return 1; }
        CHECK(cudaStreamWaitEvent(s, freed, 0));
        CHECK(cudaFreeAsync(block, s));
    }"""),
]
CORRECT = (H("correct", "None intended: parent makes and shares both IPC events; record before the message that lets the other side wait; child frees its import then records `freed`; parent's stream waits for `freed` before its free.", "n/a", "own"), E)
WRONGS = [
 ("record-after-send",
  H("IPC event recorded after the message was sent",
    "The parent sends the block's export data first and records `filled` right after. The child's wait takes whatever record the event holds when the child queues it: usually the parent has recorded by then (the child still has to receive and import), so the sums print right, but when the child is quicker its use waits for the previous round's fill, or for nothing in round 0, and reads the block before its fill.",
    "Day 73, 'Ordering two processes' GPU work without a host wait': 'A wait waits for the record made before it was called ... the socket orders the calls (the record before the message that lets the other side wait)'.",
    "own"),
  [("""        CHECK(cudaEventRecord(filled, s));    // before the message that lets the child wait
        cudaMemPoolPtrExportData data;
        CHECK(cudaMemPoolExportPointer(&data, block));
        if (!send_all(sock, &data, sizeof data)) return 1;""", """        cudaMemPoolPtrExportData data;
        CHECK(cudaMemPoolExportPointer(&data, block));
        if (!send_all(sock, &data, sizeof data)) return 1;
        CHECK(cudaEventRecord(filled, s));    // the fill is queued: mark it""")]),
 ("record-before-free",
  H("the exporter's free ordered after the read but not after the import's free",
    "The child records `freed` right after the use kernel and frees its import after the record. The parent's stream then waits for the child's read, so every sum is right, but not for the child's free of the import: the exporter's free can run before the importer's, which the API forbids.",
    "Day 73, 'Ordering two processes' GPU work': the importer must free its import before the exporter frees the block; with cudaFreeAsync the exporter's stream must depend on the importer's free: 'An event recorded after the importer's free and waited for on the exporter's stream is that dependency' (runtime API, cudaMemPoolImportPointer).",
    "own"),
  [("""        CHECK(cudaFreeAsync(block, s));       // after use, in s's order
        CHECK(cudaEventRecord(freed, s));     // after the import's free""", """        CHECK(cudaEventRecord(freed, s));     // the read is done: the parent may have it
        CHECK(cudaFreeAsync(block, s));""")]),
 ("child-polls-event",
  H("host wait disguised",
    "Before answering, the child spins on cudaEventQuery(freed) until its use kernel and free are done, 'so the parent never frees too early'. No synchronisation call appears, the sums are right, but the child's host waits 30 ms for its GPU in every round, and the two processes' kernels no longer overlap.",
    "Day 73, exercise: 'Neither host may wait for its GPU in the rounds (each has one given wait, at the end)'.",
    "https://forums.developer.nvidia.com/t/cpu-spins-while-waiting-for-gpu-to-finish-computation/241672 (host spinning on the GPU)"),
  [("""        const char answer = 'k';
        if (!send_all(sock, &answer, 1)) return 1;""", """        while (cudaEventQuery(freed) == cudaErrorNotReady) {
        } // the block is really free now
        const char answer = 'k';
        if (!send_all(sock, &answer, 1)) return 1;""")]),
 ("freed-on-legacy-stream",
  H("event recorded on the legacy default stream",
    "The child records `freed` with cudaEventRecord(freed, 0), on the legacy default stream, after queueing its read and free on its non-blocking stream. The non-blocking stream is not ordered with the legacy one, so the event completes at once: the parent frees the block and the next round's fill may overwrite it while the child's use still reads it.",
    "Day 73, 'Ordering two processes' GPU work': one records after the work, on the stream that did it; Day 70: non-blocking streams are not ordered with the legacy default stream. (The exercise also forbids work on the legacy default stream.)",
    "https://github.com/cupy/cupy/issues/3777 (what the legacy default stream orders)"),
  [("""        CHECK(cudaEventRecord(freed, s));     // after the import's free""",
    """        CHECK(cudaEventRecord(freed, 0));     // done with the block""")]),
 ("maker-destroys-early",
  H("an event destroyed by its maker while the other process still uses it",
    "Once every round is queued, the parent destroys both events (it made them, and 'nothing more will be recorded'), while the child still holds its opened handles and its last round's wait and record may still be pending on its GPU. Operations on those handles then concern events whose maker destroyed them: undefined, though it usually works.",
    "Day 73, 'Ordering two processes' GPU work': operations on an opened event after the process that made it has destroyed it are undefined: the process that opened an event destroys its handle first, the maker last.",
    "own"),
  [("""        CHECK(cudaFreeAsync(block, s));
    }
    // The child sends what it read once its GPU work is done.""", """        CHECK(cudaFreeAsync(block, s));
    }
    // Every round is queued: the events have done their job.
    CHECK(cudaEventDestroy(filled));
    CHECK(cudaEventDestroy(freed));
    filled = freed = nullptr;
    // The child sends what it read once its GPU work is done.""")]),
]
