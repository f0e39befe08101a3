from lib import build

S = "exercises/day073/ipc_pool.cu"

INC_OLD = "#include <cstdint>\n"
INC_NEW = "#include <cstdint>\n#include <vector>\n"

T3_OLD = """    // TODO 3: receive the pool's descriptor, import the pool, close the
    // descriptor; open the two events the parent made (the child makes none).
"""
T3_NEW = """    // TODO 3: receive the pool's descriptor, import the pool, close the
    // descriptor; open the two events the parent made (the child makes none).
    const int fd = recv_fd(sock);
    if (fd < 0) { fprintf(stderr, "importer: no pool descriptor came\\n"); return 1; }
    const cudaError_t imported = cudaMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)fd,
                                                                      cudaMemHandleTypePosixFileDescriptor, 0);
    close(fd);
    CHECK(imported);
    cudaIpcEventHandle_t handles[2];
    if (!recv_all(sock, handles, sizeof handles)) { fprintf(stderr, "importer: no event handles came\\n"); return 1; }
    CHECK(cudaIpcOpenEventHandle(&filled, handles[0]));
    CHECK(cudaIpcOpenEventHandle(&freed, handles[1]));
"""
T4_OLD = """        // TODO 4: import the block; the kernel below must not start
        // before the parent's fill of it is done.
"""
T4_NEW = """        // TODO 4: import the block; the kernel below must not start
        // before the parent's fill of it is done.
        CHECK(cudaMemPoolImportPointer((void**)&block, pool, &data));
        CHECK(cudaStreamWaitEvent(s, filled, 0));
"""
T5_OLD = """        // TODO 5: give the block back: free the import, let the parent's
        // GPU know when that is done, and answer the parent, all without
        // waiting here for the kernel.
"""
T5_NEW = """        // TODO 5: give the block back: free the import, let the parent's
        // GPU know when that is done, and answer the parent, all without
        // waiting here for the kernel.
        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaEventRecord(freed, s));
        const char answer = 'r';
        if (!send_all(sock, &answer, 1)) { fprintf(stderr, "importer: could not answer in round %d\\n", r); return 1; }
"""
T1_OLD = """    // TODO 1: make a pool on device 0 that can be exported as a POSIX
    // file descriptor, send it to the child and close it; make the events
    // the two processes order their GPU work with, and send the child
    // what it needs to open them.
"""
T1_NEW = """    // TODO 1: make a pool on device 0 that can be exported as a POSIX
    // file descriptor, send it to the child and close it; make the events
    // the two processes order their GPU work with, and send the child
    // what it needs to open them.
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    CHECK(cudaMemPoolCreate(&pool, &props));
    *pool_out = pool;   // main destroys it once the child is gone, whatever happens here
    int fd = -1;
    CHECK(cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
    const bool sent = send_fd(sock, fd);
    close(fd);
    if (!sent) { fprintf(stderr, "exporter: could not send the pool\\n"); return 1; }
    CHECK(cudaEventCreateWithFlags(&filled, cudaEventDisableTiming | cudaEventInterprocess));
    CHECK(cudaEventCreateWithFlags(&freed, cudaEventDisableTiming | cudaEventInterprocess));
    cudaIpcEventHandle_t handles[2];
    CHECK(cudaIpcGetEventHandle(&handles[0], filled));
    CHECK(cudaIpcGetEventHandle(&handles[1], freed));
    if (!send_all(sock, handles, sizeof handles)) { fprintf(stderr, "exporter: could not send the events\\n"); return 1; }
    // Every round's block is kept until the child has answered the last
    // round: then ONE wait on freed (the child's stream runs in order, so
    // its last record comes after every import it freed) orders all the
    // frees.
    std::vector<int*> kept;
"""
T2_OLD = """        // TODO 2: hand the block to the child, and free it once the
        // child's GPU is done with it and its import; the host waits
        // for neither GPU.
"""
T2_NEW = """        // TODO 2: hand the block to the child, and free it once the
        // child's GPU is done with it and its import; the host waits
        // for neither GPU.
        CHECK(cudaEventRecord(filled, s));
        cudaMemPoolPtrExportData data;
        CHECK(cudaMemPoolExportPointer(&data, block));
        if (!send_all(sock, &data, sizeof data)) { fprintf(stderr, "exporter: could not send round %d\\n", r); return 1; }
        char answer = 0;
        if (!recv_all(sock, &answer, 1)) { fprintf(stderr, "exporter: no answer in round %d\\n", r); return 1; }
        kept.push_back(block);
        if (r == rounds - 1) {
            CHECK(cudaStreamWaitEvent(s, freed, 0));
            for (size_t k = 0; k < kept.size(); k++) CHECK(cudaFreeAsync(kept[k], s));
            kept.clear();
        }
"""

CORRECT = [(INC_OLD, INC_NEW), (T3_OLD, T3_NEW), (T4_OLD, T4_NEW), (T5_OLD, T5_NEW), (T1_OLD, T1_NEW), (T2_OLD, T2_NEW)]

DESIGN = ("the pool's descriptor first (given send_fd; the parent closes its copy once sent, the child once imported), "
          "then both events' interprocess handles in one array; one pair of events for the run (timing off, "
          "interprocess), recorded every round in lock step with the child's one-byte answer; the parent frees NO block "
          "during the rounds: it keeps every round's block and, after the LAST round's answer, queues ONE "
          "cudaStreamWaitEvent on freed and then frees all the kept blocks on s (one wait in all instead of one a round, "
          "and the pool holds ROUNDS blocks at once); the child imports each block, waits on filled, reads, frees the "
          "import on its stream, records freed there and answers")

WRONGS = [
    ("last-kept-block-never-freed",
     "the record only: a leak (the last round's block is never given back to the pool; main's cudaMemPoolDestroy then "
     "returns at once and the memory goes only when the process ends); every printed line right",
     "the loop that frees the kept blocks stops one short (k + 1 < kept.size()), so the last round's block stays "
     "allocated",
     "every block the parent allocated must be freed once the child is done with it; with ROUNDS 1 nothing at all is "
     "freed",
     "own",
     [("for (size_t k = 0; k < kept.size(); k++) CHECK(cudaFreeAsync(kept[k], s));",
       "for (size_t k = 0; k + 1 < kept.size(); k++) CHECK(cudaFreeAsync(kept[k], s));")]),
    ("filled-recorded-without-its-stream",
     "the program's own output: the child reads every block before its fill (the 10 ms fill): 'the block was filled "
     "before the child read it' 0 of N, and a race in the record",
     "the parent calls cudaEventRecord(filled) with no stream, so the event is recorded on the legacy default stream "
     "instead of s, behind the fill",
     "s is non-blocking: the legacy stream is not ordered after the fill queued on s, so filled completes at once and "
     "the child's wait on it orders its read after nothing",
     "related: alpaka-group/cupla#66 (an event recorded on stream zero taken to order other streams' work)",
     [("        CHECK(cudaEventRecord(filled, s));\n        cudaMemPoolPtrExportData data;",
       "        CHECK(cudaEventRecord(filled));\n        cudaMemPoolPtrExportData data;")]),
    ("kept-blocks-freed-on-the-last-answer-alone",
     "the record only (a race): the parent's frees are not ordered after the child's last read and its free of the "
     "import; the printed lines right, since nothing writes the blocks again after the last round",
     "after the last round's answer the parent frees the kept blocks on s with no wait on freed, taking the child's "
     "answer byte as the sign that the child's GPU is done",
     "the answer only says that the child queued its free and its record, not that its stream ran them; the child's "
     "last read (30 ms) is still running when the parent's frees are queued",
     "own",
     [("            CHECK(cudaStreamWaitEvent(s, freed, 0));\n", "")]),
    ("kept-blocks-held-in-an-array-of-16",
     "other arguments only (ROUNDS above 16): the kept blocks are written past the end of a 16-slot array on the "
     "parent's stack (a crash, or blocks lost or freed twice); the default run and any ROUNDS up to 16 right",
     "the parent keeps the blocks in a fixed array of 16 pointers (the default run has 5 rounds), not in a list that "
     "grows with ROUNDS",
     "ROUNDS may be up to 64: from round 17 on the parent writes past the array, overwriting its own locals, and what "
     "it frees at the end is no longer the blocks it allocated",
     "own",
     [("    std::vector<int*> kept;\n", "    int* kept[16];\n    int nkept = 0;\n"),
      ("        kept.push_back(block);\n", "        kept[nkept++] = block;\n"),
      ("            for (size_t k = 0; k < kept.size(); k++) CHECK(cudaFreeAsync(kept[k], s));\n            kept.clear();\n",
       "            for (int k = 0; k < nkept; k++) CHECK(cudaFreeAsync(kept[k], s));\n            nkept = 0;\n")]),
]


def rows():
    return build("ipc-pool", S, "cu", CORRECT, DESIGN, WRONGS)
