from mk import student, sub, build

T = student("exercises/day073/ipc_pool.cu")

T3_OLD = """    // TODO 3: receive the pool's descriptor, import the pool, close the
    // descriptor; open the two events the parent made (the child makes none).
"""
T3_NEW = """    int fd = recv_fd(sock);
    if (fd < 0) { fprintf(stderr, "importer: no pool descriptor came\\n"); return 1; }
    cudaError_t imported = cudaMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0);
    close(fd);
    CHECK(imported);
    // Two pairs of events, used by turns: round r waits on filled of pair
    // r % 2 and records freed of the same pair. Pair 0 is filled and freed
    // (the given code closes them at the end); pair 1 is closed after its
    // last use, in the last round, before the answer that lets the parent
    // destroy it.
    cudaEvent_t spare[2] = {nullptr, nullptr};
    cudaEvent_t* pairs[2][2] = {{&filled, &freed}, {&spare[0], &spare[1]}};
    cudaIpcEventHandle_t handles[2][2];
    if (!recv_all(sock, handles, sizeof handles)) { fprintf(stderr, "importer: no event handles came\\n"); return 1; }
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++) CHECK(cudaIpcOpenEventHandle(pairs[k][j], handles[k][j]));
"""

T4_OLD = """        // TODO 4: import the block; the kernel below must not start
        // before the parent's fill of it is done.
"""
T4_NEW = """        CHECK(cudaMemPoolImportPointer((void**)&block, pool, &data));
        CHECK(cudaStreamWaitEvent(s, *pairs[r % 2][0], 0));
"""

T5_OLD = """        // TODO 5: give the block back: free the import, let the parent's
        // GPU know when that is done, and answer the parent, all without
        // waiting here for the kernel.
"""
T5_NEW = """        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaEventRecord(*pairs[r % 2][1], s));
        if (r == rounds - 1)
            for (auto& e : spare) CHECK(cudaEventDestroy(e));
        const char answer = 'a';
        if (!send_all(sock, &answer, 1)) { fprintf(stderr, "importer: could not answer round %d\\n", r); return 1; }
"""

T1_OLD = """    // TODO 1: make a pool on device 0 that can be exported as a POSIX
    // file descriptor, send it to the child and close it; make the events
    // the two processes order their GPU work with, and send the child
    // what it needs to open them.
"""
T1_NEW = """    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    CHECK(cudaMemPoolCreate(&pool, &props));
    int fd = -1;
    CHECK(cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
    const bool sent = send_fd(sock, fd);
    close(fd);
    if (!sent) { fprintf(stderr, "exporter: could not send the pool\\n"); return 1; }
    // Two pairs of events, used by turns, so that two rounds can be in
    // flight: round r records filled of pair r % 2 and, before that, takes
    // back round r - 2's block, which used the same pair. Pair 0 is filled
    // and freed, destroyed by the given code at the end; pair 1 is
    // destroyed here once the child has answered its last round.
    cudaEvent_t spare[2] = {nullptr, nullptr};
    cudaEvent_t* pairs[2][2] = {{&filled, &freed}, {&spare[0], &spare[1]}};
    cudaIpcEventHandle_t handles[2][2];
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++) {
            CHECK(cudaEventCreateWithFlags(pairs[k][j], cudaEventInterprocess | cudaEventDisableTiming));
            CHECK(cudaIpcGetEventHandle(&handles[k][j], *pairs[k][j]));
        }
    if (!send_all(sock, handles, sizeof handles)) { fprintf(stderr, "exporter: could not send the event handles\\n"); return 1; }
    int* out[2] = {nullptr, nullptr};   // the block of the round in flight on each pair
"""

T2_OLD = """        // TODO 2: hand the block to the child, and free it once the
        // child's GPU is done with it and its import; the host waits
        // for neither GPU.
"""
T2_NEW = """        const int k = r % 2;
        if (r >= 2) {
            // Round r - 2's answer says the child queued its free and the
            // record of freed for that round: the wait finds that record.
            char answer;
            if (!recv_all(sock, &answer, 1)) { fprintf(stderr, "exporter: no answer for round %d\\n", r - 2); return 1; }
            CHECK(cudaStreamWaitEvent(s, *pairs[k][1], 0));
            CHECK(cudaFreeAsync(out[k], s));
        }
        // The child's wait for round r - 2's fill was queued before its
        // answer: filled of this pair may be recorded again.
        CHECK(cudaEventRecord(*pairs[k][0], s));
        cudaMemPoolPtrExportData data;
        CHECK(cudaMemPoolExportPointer(&data, block));
        if (!send_all(sock, &data, sizeof data)) { fprintf(stderr, "exporter: could not send round %d\\n", r); return 1; }
        out[k] = block;
        if (r == rounds - 1) {
            // The blocks still out: round r - 1's (when there is one) and r's.
            for (int q = rounds >= 2 ? r - 1 : r; q <= r; q++) {
                char answer;
                if (!recv_all(sock, &answer, 1)) { fprintf(stderr, "exporter: no answer for round %d\\n", q); return 1; }
                CHECK(cudaStreamWaitEvent(s, *pairs[q % 2][1], 0));
                CHECK(cudaFreeAsync(out[q % 2], s));
            }
            for (auto& e : spare) CHECK(cudaEventDestroy(e));
        }
"""

C = T
for o, n in [(T3_OLD, T3_NEW), (T4_OLD, T4_NEW), (T5_OLD, T5_NEW), (T1_OLD, T1_NEW), (T2_OLD, T2_NEW)]:
    C = sub(C, o, n)

CORRECT = ("correct",
           "none: two pairs of interprocess events used by turns (round r uses pair r % 2), all four handles sent once as an array after the pool's descriptor, so that two rounds are in flight: before recording filled of its pair, round r reads round r - 2's answer, queues the wait for that pair's freed and frees round r - 2's block; the last round drains the one or two blocks still out; the spare pair is closed by the child in its last round, before its answer, and destroyed by the parent after the last answer.",
           "none.",
           "none (written from the lesson and the student file).")

DRAIN = "            for (int q = rounds >= 2 ? r - 1 : r; q <= r; q++) {"
W = [
    ("drain-assumes-two-rounds-in-flight",
     ("wrong (shows only with ROUNDS 1: a hidden run may use it)",
      "the last round drains rounds r - 1 and r always (for (q = r - 1; ...)), taking for granted that two rounds are in flight.",
      "with one round, q starts at -1: pairs[-1 % 2] indexes before the array (in C++ -1 % 2 is -1) and the drain reads one answer too many, so the first byte of the child's sums is taken for an answer and the sums that follow are one byte short; with two rounds or more, r - 1 is a real round and the output is right.",
      "ROCm/rocm-systems#1949 and ROCm/rocm-systems#11749 (an IPC event's slot index not kept in range: an access before or past the array once the count left the case the code was written for), own (a pipeline's drain written for the steady state)"),
     [(DRAIN, "            for (int q = r - 1; q <= r; q++) {")]),
    ("drain-frees-before-its-wait",
     ("wrong (the record only: the last one or two blocks are freed with no order after the child's free of its import)",
      "in the drain after the last round, the parent queues each block's free before the wait for its freed event (the loop in the rounds has them in the right order).",
      "a free queued before the wait is ordered after nothing of the child's: the parent's pool may take the block back while the child's kernel still reads it and before the child's import is freed, which the import's rules forbid; no round follows, so nothing refills the memory and every sum the child reads is right: only the record of the two processes' calls shows the free before the wait.",
      "the CUDA Runtime API reference, cudaMemPoolImportPointer (quoted in lessons/day073: the exporter's free must depend on the importer's free), sgl-project/sglang#14214 (a wait queued on the wrong side of the work it should order)"),
     [("""                CHECK(cudaStreamWaitEvent(s, *pairs[q % 2][1], 0));
                CHECK(cudaFreeAsync(out[q % 2], s));""",
       """                CHECK(cudaFreeAsync(out[q % 2], s));
                CHECK(cudaStreamWaitEvent(s, *pairs[q % 2][1], 0));""")]),
    ("spare-event-pair-never-destroyed",
     ("wrong (leak: two interprocess events the parent made and never destroyed)",
      "the parent never destroys the spare pair of events (the given code destroys filled and freed; the two it made besides are left to the process's exit).",
      "every event the maker creates must be destroyed by it, after the child closed its handles: the program's output is right, and only the record of created and destroyed events shows the two left.",
      "llnl/camp#71 (CUDA event wrappers that create events and never destroy them), tromp/cuckoo#69 (cudaEventCreate without cudaEventDestroy)"),
     [("            for (auto& e : spare) CHECK(cudaEventDestroy(e));\n        }\n", "        }\n")]),
    ("freed-waited-on-the-previous-rounds-pair",
     ("wrong (race: a block freed behind the child's free of an older round; shows as a changed second read only when the parent's next fill lands in the freed block during the child's 30 ms read)",
      "taking back round r - 2's block, the parent waits on freed of pair (r - 1) % 2 (the 'previous round's pair') instead of pair r % 2, the pair round r - 2 used.",
      "freed of the other pair was last recorded by the child at round r - 3 (or not yet at all, at r = 2: a wait on an event never recorded waits for nothing), so round r - 2's block goes back to the pool while the child may still read it; the next round's allocation can take that memory and fill it under the child's second read.",
      "ROCm/rocm-systems#1949 (an IPC event's wait that looked at another recording's slot), pytorch/pytorch#15974 (interprocess events: a wait or synchronize follows the last record made before it)"),
     [("            CHECK(cudaStreamWaitEvent(s, *pairs[k][1], 0));\n            CHECK(cudaFreeAsync(out[k], s));",
       "            CHECK(cudaStreamWaitEvent(s, *pairs[(r - 1) % 2][1], 0));\n            CHECK(cudaFreeAsync(out[k], s));")]),
]

build("ipc-pool", "cu", "//", C, CORRECT, W)
