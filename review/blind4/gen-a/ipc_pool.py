from mk import build

CORRECT = dict(
    kind='correct (a design of its own)',
    mistake='none. The parent makes both events and sends their handles after the pool\'s descriptor. Its rounds are pipelined: round r records filled, sends the export data, and only then takes the child\'s answer for round r-1, makes its stream wait for freed and frees block r-1; the last block is given back after the loop. The child imports the block, waits for filled, reads it, frees the import, records freed and answers.',
    **{'why it is wrong': 'it is not: every wait is queued after the record it needs (the socket orders them), and a wait that sees a later record of the same event on the same stream only waits longer, so the child never reads before the fill and the parent never frees before the child\'s free; neither host waits for its GPU in the rounds, nothing runs on the legacy stream, and the maker destroys its events after the child.',
    },
    source='the lesson (day 73, "Ordering two processes\' GPU work without a host wait"); the runtime API reference, cudaIpcGetEventHandle (cudaEventInterprocess and cudaEventDisableTiming), cudaMemPoolImportPointer; the Programming Guide, IPC memory pools.',
)

C = [
("""    // TODO 3: receive the pool's descriptor, import the pool, close the
    // descriptor; open the events the parent shares (or share your own).
    for (int r = 0; r < rounds; r++) {""",
"""    // TODO 3: receive the pool's descriptor, import the pool, close the
    // descriptor; open the events the parent shares (or share your own).
    int fd = recv_fd(sock);
    if (fd < 0) { fprintf(stderr, "importer: no pool descriptor came\\n"); return 1; }
    cudaError_t imported = cudaMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0);
    close(fd);
    CHECK(imported);
    cudaIpcEventHandle_t handles[2];
    if (!recv_all(sock, handles, sizeof handles)) { fprintf(stderr, "importer: no event handles came\\n"); return 1; }
    CHECK(cudaIpcOpenEventHandle(&filled, handles[0]));
    CHECK(cudaIpcOpenEventHandle(&freed, handles[1]));
    for (int r = 0; r < rounds; r++) {"""),
("""        // TODO 4: import the block; the kernel below must not start
        // before the parent's fill of it is done.
        use<<<128, 256, 0, s>>>(block, n, kUseNs, sums + 2 * r);""",
"""        // TODO 4: import the block; the kernel below must not start
        // before the parent's fill of it is done.
        CHECK(cudaMemPoolImportPointer((void**)&block, pool, &data));
        CHECK(cudaStreamWaitEvent(s, filled, 0));
        use<<<128, 256, 0, s>>>(block, n, kUseNs, sums + 2 * r);"""),
("""        // TODO 5: give the block back: free the import, let the parent's
        // GPU know when that is done, and answer the parent, all without
        // waiting here for the kernel.
    }""",
"""        // TODO 5: give the block back: free the import, let the parent's
        // GPU know when that is done, and answer the parent, all without
        // waiting here for the kernel.
        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaEventRecord(freed, s));
        const char answer = 'd';
        if (!send_all(sock, &answer, 1)) return 1;
    }"""),
("""    // TODO 1: make a pool on device 0 that can be exported as a POSIX
    // file descriptor, send it to the child and close it; make the events
    // the two processes order their GPU work with, and send the child
    // what it needs to open them.
    for (int r = 0; r < rounds; r++) {""",
"""    // TODO 1: make a pool on device 0 that can be exported as a POSIX
    // file descriptor, send it to the child and close it; make the events
    // the two processes order their GPU work with, and send the child
    // what it needs to open them.
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    CHECK(cudaMemPoolCreate(&pool, &props));
    int fd = -1;
    CHECK(cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
    const bool sent = send_fd(sock, fd);
    close(fd);
    if (!sent) { fprintf(stderr, "exporter: the pool's descriptor did not go\\n"); return 1; }
    CHECK(cudaEventCreateWithFlags(&filled, cudaEventInterprocess | cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&freed, cudaEventInterprocess | cudaEventDisableTiming));
    cudaIpcEventHandle_t handles[2];
    CHECK(cudaIpcGetEventHandle(&handles[0], filled));
    CHECK(cudaIpcGetEventHandle(&handles[1], freed));
    if (!send_all(sock, handles, sizeof handles)) return 1;
    // The rounds are pipelined: round r hands its block over first, then
    // takes back round r-1's. give_back takes the child's answer for the
    // oldest block still out (it comes once the child has queued its free
    // and recorded freed after it), orders s after that free, and frees
    // the block in s's order.
    int* pending = nullptr;
    auto give_back = [&](int* b) {
        char answer = 0;
        if (!recv_all(sock, &answer, 1)) { fprintf(stderr, "exporter: the child did not answer\\n"); return false; }
        if (cudaStreamWaitEvent(s, freed, 0) != cudaSuccess) return false;
        return cudaFreeAsync(b, s) == cudaSuccess;
    };
    for (int r = 0; r < rounds; r++) {"""),
("""        // TODO 2: hand the block to the child, and free it once the
        // child's GPU is done with it and its import; the host waits
        // for neither GPU.
    }""",
"""        // TODO 2: hand the block to the child, and free it once the
        // child's GPU is done with it and its import; the host waits
        // for neither GPU.
        CHECK(cudaEventRecord(filled, s));
        cudaMemPoolPtrExportData data;
        CHECK(cudaMemPoolExportPointer(&data, block));
        if (!send_all(sock, &data, sizeof data)) return 1;
        if (pending != nullptr && !give_back(pending)) return 1;
        pending = block;
    }
    // The last block comes back after the rounds.
    if (pending != nullptr && !give_back(pending)) return 1;"""),
]

W = []

W.append(('events-not-interprocess', dict(
    kind='an API used with a wrong flag',
    mistake='the parent creates filled and freed with cudaEventDisableTiming alone, as Day 70\'s events were made.',
    **{'why it is wrong': 'an event\'s handle can be taken only if it was made with both cudaEventInterprocess and cudaEventDisableTiming: cudaIpcGetEventHandle refuses these, the parent stops, and the child never gets its events.'},
    source='the runtime API reference, cudaIpcGetEventHandle ("This event must have been created with the cudaEventInterprocess and cudaEventDisableTiming flags set"); the lesson (day 73: "without both flags its handle cannot be taken").',
), [
("""    CHECK(cudaEventCreateWithFlags(&filled, cudaEventInterprocess | cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&freed, cudaEventInterprocess | cudaEventDisableTiming));""",
"""    CHECK(cudaEventCreateWithFlags(&filled, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&freed, cudaEventDisableTiming));"""),
]))

W.append(('free-before-wait-for-freed', dict(
    kind='a free placed before the wait that orders it',
    mistake='give_back queues the parent\'s cudaFreeAsync first and the wait for the child\'s freed event after it.',
    **{'why it is wrong': 'the wait orders only what is queued after it: the parent\'s free runs as soon as its stream gets there, while the child\'s kernel may still read the block, and the next round\'s allocation on the same stream can take the block and fill it under the child\'s second read.'},
    source='the runtime API reference, cudaMemPoolImportPointer (the exporter\'s free must depend on the importer\'s free); deepseek-ai/DeepEP#497 (the exporter freeing memory before the importers are done with it is undefined behaviour).',
), [
("""        if (cudaStreamWaitEvent(s, freed, 0) != cudaSuccess) return false;
        return cudaFreeAsync(b, s) == cudaSuccess;""",
"""        if (cudaFreeAsync(b, s) != cudaSuccess) return false;
        return cudaStreamWaitEvent(s, freed, 0) == cudaSuccess;"""),
]))

W.append(('frees-current-not-previous', dict(
    kind='an off-by-one in a pipeline: the wrong round\'s block freed',
    mistake='in the loop, give_back is called with this round\'s block, just sent, instead of the previous round\'s.',
    **{'why it is wrong': 'the answer and the freed event belong to round r-1: freeing block r after them frees a block the child has not even imported yet, and the parent\'s next allocation may take it and fill it under the child\'s read; the block of round r-1 is never freed in the rounds, and after the loop the last block is freed twice.'},
    source='the lesson (day 73: "frees the block only after every importer has freed its import"); NVlabs/cuda-oxide#619 (a free ordered after the wrong use).',
), [
("""        if (pending != nullptr && !give_back(pending)) return 1;
        pending = block;""",
"""        if (pending != nullptr && !give_back(block)) return 1;
        pending = block;"""),
]))

W.append(('last-block-not-freed', dict(
    kind='a leak on the last branch of a pipeline',
    mistake='after the rounds the parent takes the child\'s last answer but does not free the last block, since the pool is destroyed at the end anyway.',
    **{'why it is wrong': 'the last round\'s block stays allocated from the pool until the pool goes: a leak of one block per run (with one round, of every block), and a pool destroyed with an allocation still in it.'},
    source='the runtime API reference, cudaMemPoolDestroy (with pointers from the pool not yet freed it returns at once and the pool\'s resources are released only once no allocation is outstanding); the lesson (day 73, table, step 8).',
), [
("""    if (pending != nullptr && !give_back(pending)) return 1;
    // The child sends""",
"""    char last = 0;
    if (pending != nullptr && !recv_all(sock, &last, 1)) return 1;   // the pool goes at the end anyway
    // The child sends"""),
]))

W.append(('answer-before-freed-record', dict(
    kind='ordering between processes: the message sent before the record it announces',
    mistake='the child answers the parent first and then frees its import and records freed.',
    **{'why it is wrong': 'the socket must order the record before the parent\'s wait: a parent that reads the answer and queues its wait before the child\'s record waits for the previous round\'s mark (or, in round 0, for an event never recorded: no wait at all), and frees the block while the child still reads it. Whether a run shows it depends on which host gets the CPU first.'},
    source='the lesson (day 73: "the socket orders the calls (the record before the message that lets the other side wait)"); the runtime API reference, cudaStreamWaitEvent (an event never recorded is a no-op wait).',
), [
("""        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaEventRecord(freed, s));
        const char answer = 'd';
        if (!send_all(sock, &answer, 1)) return 1;""",
"""        const char answer = 'd';
        if (!send_all(sock, &answer, 1)) return 1;
        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaEventRecord(freed, s));"""),
]))

build('ipc-pool', 'exercises/day073/ipc_pool.cu', CORRECT, C, W)
