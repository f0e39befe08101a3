import sys; sys.path.insert(0, '.')
from mk import build
src = open('../../exercises/day073/ipc_pool.cu').read()
D = 'ipc-pool/'
correct = [
("""    // TODO 3: receive the pool's descriptor and import the pool; open
    // the events the parent shares (or share one of your own).
    for (int r = 0; r < rounds; r++) {""",
"""    {
        int fd = recv_fd(sock);
        if (fd < 0) { fprintf(stderr, "importer: no pool descriptor\\n"); return 1; }
        cudaError_t e = cudaMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0);
        close(fd); // the import holds the pool now
        CHECK(e);
        cudaIpcEventHandle_t h[2];
        if (!recv_all(sock, h, sizeof h)) { fprintf(stderr, "importer: no event handles\\n"); return 1; }
        CHECK(cudaIpcOpenEventHandle(&filled, h[0]));
        CHECK(cudaIpcOpenEventHandle(&freed, h[1]));
    }
    for (int r = 0; r < rounds; r++) {"""),
("""        // TODO 4: import the block; the kernel below must not start
        // before the parent's fill of it is done.
        use<<<""",
"""        CHECK(cudaMemPoolImportPointer((void**)&block, pool, &data));
        // The parent recorded filled before it sent the data: this wait
        // takes that record.
        CHECK(cudaStreamWaitEvent(s, filled, 0));
        use<<<"""),
("""        // TODO 5: give the block back: free the import, let the parent's
        // GPU know when that is done, and answer the parent, all without
        // waiting here for the kernel.
    }""",
"""        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaEventRecord(freed, s));
        // The record is made before the answer, so the parent's wait,
        // queued after the answer, takes it.
        const char done = 'd';
        if (!send_all(sock, &done, 1)) { fprintf(stderr, "importer: the parent is gone\\n"); return 1; }
    }"""),
("""    // TODO 1: make a pool on device 0 that can be exported as a POSIX
    // file descriptor, and send it to the child; make the events the two
    // processes order their GPU work with, and send the child what it
    // needs to open them.
    for (int r = 0; r < rounds; r++) {""",
"""    {
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = 0;
        CHECK(cudaMemPoolCreate(&pool, &props));
        *pool_out = pool; // main destroys it even if a later step fails
        int fd = -1;
        CHECK(cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
        const bool sent = send_fd(sock, fd);
        close(fd); // the child has its own descriptor now
        if (!sent) { fprintf(stderr, "exporter: could not send the pool\\n"); return 1; }
        CHECK(cudaEventCreateWithFlags(&filled, cudaEventInterprocess | cudaEventDisableTiming));
        CHECK(cudaEventCreateWithFlags(&freed, cudaEventInterprocess | cudaEventDisableTiming));
        cudaIpcEventHandle_t h[2];
        CHECK(cudaIpcGetEventHandle(&h[0], filled));
        CHECK(cudaIpcGetEventHandle(&h[1], freed));
        if (!send_all(sock, h, sizeof h)) { fprintf(stderr, "exporter: could not send the events\\n"); return 1; }
    }
    for (int r = 0; r < rounds; r++) {"""),
("""        // TODO 2: hand the block to the child, and free it once the
        // child's GPU is done with it and its import; the host waits
        // for neither GPU.
    }""",
"""        CHECK(cudaEventRecord(filled, s));
        cudaMemPoolPtrExportData data;
        CHECK(cudaMemPoolExportPointer(&data, block));
        if (!send_all(sock, &data, sizeof data)) { fprintf(stderr, "exporter: the child is gone\\n"); return 1; }
        // The child answers once its free and its record of freed are
        // queued (not done): the socket orders the calls, the event the GPU.
        char done = 0;
        if (!recv_all(sock, &done, 1)) { fprintf(stderr, "exporter: the child did not answer in round %d\\n", r); return 1; }
        CHECK(cudaStreamWaitEvent(s, freed, 0));
        CHECK(cudaFreeAsync(block, s));
    }"""),
]
H = """kind: correct
mistake: none: an exportable pool (POSIX fd) sent over the socket and both descriptors
  closed after use, two interprocess events (filled, freed) whose handles go once; each
  round the parent records filled, sends the export data, reads the child's answer,
  makes its stream wait for freed and frees the block; the child imports the block,
  waits for filled on its stream, reads, frees the import with cudaFreeAsync, records
  freed, then answers. No host waits in the rounds.
why it is wrong: it is not (lesson day 73, "Ordering two processes' GPU work without a
  host wait").
source: own"""
body = build(src, D + 'correct.cu', H, correct)
def wrong(slug, header, pairs):
    build(body, D + 'wrong-' + slug + '.cu', header, pairs)

wrong('import-freed-with-cudafree', """kind: wrong (a host wait in the rounds the output does not show)
mistake: the child gives its import back with cudaFree, which the lesson's table allows,
  instead of cudaFreeAsync on its stream.
why it is wrong: cudaFree synchronises: it waits for the device's work, the child's 30 ms
  read included, before it returns (CUDA Runtime API, cudaFree: "implicit
  synchronization"; lesson day 69: "cudaFree waits until the whole device is idle"), so
  the child's host waits for its GPU in every round, which the exercise forbids. The
  sums are right, and the freed event still orders the parent.
source: https://wiki.huangxt.cn/gpu/CUDA-Runtime-API-Synchronization-and-Stream-Behavior
  ("APIs like memory allocation/free ... are implicitly sync w.r.t. the host")""", [
("""        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaEventRecord(freed, s));""",
"""        CHECK(cudaFree(block)); // the table: cudaFree or cudaFreeAsync
        CHECK(cudaEventRecord(freed, s));"""),
])

wrong('descriptors-left-open', """kind: wrong (leak the output does not show)
mistake: neither process closes the pool's file descriptor: the parent keeps the one the
  export made after sending it, the child the one it received after importing.
why it is wrong: cudaMemPoolExportToShareableHandle gives the caller a descriptor to own
  and close, and SCM_RIGHTS gives the receiver its own descriptor for the same object
  (send_fd's comment); the import does not take it over (CUDA Runtime API,
  cudaMemPoolImportFromShareableHandle). An open descriptor is a capability to map the
  pool's memory (lesson day 73: "The descriptor is a capability"), kept for the rest of
  each process's life.
source: own""", [
("""        cudaError_t e = cudaMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0);
        close(fd); // the import holds the pool now
        CHECK(e);""",
"""        CHECK(cudaMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0));"""),
("""        const bool sent = send_fd(sock, fd);
        close(fd); // the child has its own descriptor now
        if (!sent)""",
"""        const bool sent = send_fd(sock, fd);
        if (!sent)"""),
])

wrong('event-opened-every-round', """kind: wrong (leak the output does not show)
mistake: the child opens the freed event's handle again every round (the parent sends it
  with each block's data) and destroys only the last one it opened.
why it is wrong: each cudaIpcOpenEventHandle gives a new event in the child, to be
  destroyed with cudaEventDestroy (CUDA Runtime API, cudaIpcOpenEventHandle); all but
  the last are leaked. Every handle names the same event, so the ordering, and every
  sum, is right.
source: own""", [
("""        if (!send_all(sock, &data, sizeof data)) { fprintf(stderr, "exporter: the child is gone\\n"); return 1; }""",
"""        if (!send_all(sock, &data, sizeof data)) { fprintf(stderr, "exporter: the child is gone\\n"); return 1; }
        cudaIpcEventHandle_t fh;
        CHECK(cudaIpcGetEventHandle(&fh, freed));
        if (!send_all(sock, &fh, sizeof fh)) { fprintf(stderr, "exporter: the child is gone\\n"); return 1; }"""),
("""        CHECK(cudaMemPoolImportPointer((void**)&block, pool, &data));""",
"""        cudaIpcEventHandle_t fh;
        if (!recv_all(sock, &fh, sizeof fh)) { fprintf(stderr, "importer: no event in round %d\\n", r); return 1; }
        CHECK(cudaIpcOpenEventHandle(&freed, fh)); // this round's
        CHECK(cudaMemPoolImportPointer((void**)&block, pool, &data));"""),
])

wrong('parent-polls-fill-before-send', """kind: wrong (a host wait by polling)
mistake: before it sends a block's export data, the parent loops on cudaEventQuery(filled)
  until the fill is done, "so the child never sees an unfilled block", on top of the
  child's GPU wait.
why it is wrong: a loop on cudaEventQuery is a host wait for the GPU (lesson day 68: "so
  would a loop on cudaEventQuery"), and neither host may wait in the rounds (lesson day
  73, the exercise); the parent stands still 10 ms a round. No cudaStreamSynchronize or
  cudaEventSynchronize is called, and every sum is right.
source: own (issue 36 names the kind: host waits by polling)""", [
("""        CHECK(cudaEventRecord(filled, s));
        cudaMemPoolPtrExportData data;""",
"""        CHECK(cudaEventRecord(filled, s));
        cudaError_t q;
        while ((q = cudaEventQuery(filled)) == cudaErrorNotReady) usleep(100);
        CHECK(q);
        cudaMemPoolPtrExportData data;"""),
])
