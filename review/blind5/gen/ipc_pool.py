STUDENT = "exercises/day073/ipc_pool.cu"
DIR = "ipc-pool"
EXT = "cu"
COMMENT = "//"
CORRECT_HEADER = dict(
    kind="correct (a design of its own)",
    mistake="""none. The parent makes both interprocess events and sends, in one
    setup message after the pool's descriptor, the two event handles together as
    one struct. Each round in lockstep: the parent exports the pointer, records
    `filled` on its stream, then sends the export data; it reads the child's
    one-byte answer (a socket read, no GPU wait), makes its stream wait for
    `freed` and frees the block there. The child imports, waits for `filled`,
    runs `use`, frees its import, records `freed`, then answers.""",
    why="""it is not: every record is made before the message that lets the other
    side wait for it; the parent's free is ordered after the child's free of its
    import; neither host waits for a GPU in the rounds; the opener (the child)
    destroys its event handles first.""",
    source="""own design from the lesson (day 73, "The steps, and who does what",
    "Ordering two processes' GPU work without a host wait", "The exercise");
    the runtime API reference, cudaIpcGetEventHandle and
    cudaMemPoolImportPointer.""")

CORRECT = [
("""// ---- The child: imports the pool, the events and each block ----""",
"""// The two event handles travel together, as plain bytes.
struct EventHandles {
    cudaIpcEventHandle_t filled, freed;
};

// ---- The child: imports the pool, the events and each block ----"""),
("""    // TODO 3: receive the pool's descriptor, import the pool, close the
    // descriptor; open the events the parent shares (or share your own).
    for (int r = 0; r < rounds; r++) {""",
"""    {
        const int fd = recv_fd(sock);
        if (fd < 0) { fprintf(stderr, "importer: no pool descriptor\\n"); return 1; }
        const cudaError_t e = cudaMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0);
        close(fd);
        CHECK(e);
        EventHandles h;
        if (!recv_all(sock, &h, sizeof h)) { fprintf(stderr, "importer: no event handles\\n"); return 1; }
        CHECK(cudaIpcOpenEventHandle(&filled, h.filled));
        CHECK(cudaIpcOpenEventHandle(&freed, h.freed));
    }
    for (int r = 0; r < rounds; r++) {"""),
("""        // TODO 4: import the block; the kernel below must not start
        // before the parent's fill of it is done.
""",
"""        CHECK(cudaMemPoolImportPointer((void**)&block, pool, &data));
        CHECK(cudaStreamWaitEvent(s, filled, 0));
"""),
("""        // TODO 5: give the block back: free the import, let the parent's
        // GPU know when that is done, and answer the parent, all without
        // waiting here for the kernel.
""",
"""        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaEventRecord(freed, s));
        const char done = 'd';
        if (!send_all(sock, &done, 1)) return 1;
"""),
("""    // TODO 1: make a pool on device 0 that can be exported as a POSIX
    // file descriptor, send it to the child and close it; make the events
    // the two processes order their GPU work with, and send the child
    // what it needs to open them.
""",
"""    {
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = 0;
        CHECK(cudaMemPoolCreate(&pool, &props));
        *pool_out = pool;   // destroyed by main once the child is gone
        int fd = -1;
        CHECK(cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
        const bool sent = send_fd(sock, fd);
        close(fd);
        if (!sent) { fprintf(stderr, "exporter: could not send the pool\\n"); return 1; }
        CHECK(cudaEventCreateWithFlags(&filled, cudaEventInterprocess | cudaEventDisableTiming));
        CHECK(cudaEventCreateWithFlags(&freed, cudaEventInterprocess | cudaEventDisableTiming));
        EventHandles h;
        CHECK(cudaIpcGetEventHandle(&h.filled, filled));
        CHECK(cudaIpcGetEventHandle(&h.freed, freed));
        if (!send_all(sock, &h, sizeof h)) return 1;
    }
"""),
("""        // TODO 2: hand the block to the child, and free it once the
        // child's GPU is done with it and its import; the host waits
        // for neither GPU.
""",
"""        cudaMemPoolPtrExportData data;
        CHECK(cudaMemPoolExportPointer(&data, block));
        CHECK(cudaEventRecord(filled, s));
        if (!send_all(sock, &data, sizeof data)) { fprintf(stderr, "exporter: could not send round %d\\n", r); return 1; }
        char done = 0;
        if (!recv_all(sock, &done, 1)) { fprintf(stderr, "exporter: no answer in round %d\\n", r); return 1; }
        CHECK(cudaStreamWaitEvent(s, freed, 0));
        CHECK(cudaFreeAsync(block, s));
"""),
]

WRONG = [
("pool-descriptor-passed-by-address", dict(
    kind="a misused argument: the descriptor's address passed as the shareable handle",
    mistake="""the child imports the pool with cudaMemPoolImportFromShareableHandle(&pool,
    &fd, ...), the address of the int holding the descriptor, instead of the
    descriptor itself cast to a pointer.""",
    why="""for a POSIX file descriptor the handle argument is the descriptor's value:
    given a stack address the driver tries to import a nonsense descriptor and
    fails, so the child stops at once and the parent finds no answer.""",
    source="""ROCm/rocm-systems#1564 ("Cast the file descriptor instead of sending the
    address": hipMemImportFromShareableHandle "expects the handle as its second
    parameter, not the address of the handle"); the lesson's table (step 5:
    "the handle passed by value, cast to a pointer")."""),
 [("""        const cudaError_t e = cudaMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0);""",
   """        int handle = fd;
        const cudaError_t e = cudaMemPoolImportFromShareableHandle(&pool, &handle, cudaMemHandleTypePosixFileDescriptor, 0);""")]),
("filled-recorded-on-stream-zero", dict(
    kind="the wrong stream: the hand-over event recorded on stream 0",
    mistake="""the parent records `filled` with cudaEventRecord(filled, 0), on the legacy
    default stream, not on the stream its allocation and fill were queued on.""",
    why="""the parent's stream is non-blocking, so stream 0 does not wait for its
    fill: the record completes at once, the child's wait is satisfied
    immediately and `use` reads the block before (or while) it is filled.""",
    source="""supranational/sppark#81 (a null stream argument means the legacy default
    stream, "which isn't used anywhere in the codebase"); ai-dynamo/nixl#965
    (stream 0 passed to a stream-ordered call)."""),
 [("""        CHECK(cudaEventRecord(filled, s));""",
   """        CHECK(cudaEventRecord(filled, 0));""")]),
("pool-without-handle-type", dict(
    kind="a missing property: the pool made without an exportable handle type",
    mistake="""the parent's pool props leave handleTypes at cudaMemHandleTypeNone (the
    zero of `= {}`), as for a pool of its own, and then ask for its descriptor.""",
    why="""only a pool created with a handle type can be exported:
    cudaMemPoolExportToShareableHandle fails, the parent stops before the first
    round, and the child waits for a descriptor that never comes.""",
    source="""NVIDIA/cuda-python#930 ("Implements IPC-enabled memory pools": export and
    import refuse a resource that was not created IPC-enabled); NVIDIA/cccl#11462
    (the cudaMemPoolCreate reference on cudaMemPoolProps::handleTypes)."""),
 [("""        props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = 0;
        CHECK(cudaMemPoolCreate(&pool, &props));""",
   """        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = 0;
        CHECK(cudaMemPoolCreate(&pool, &props));""")]),
]
