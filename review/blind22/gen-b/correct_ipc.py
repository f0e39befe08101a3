import sys; sys.path.insert(0, "gen-b")
from fill import fill
H = ["kind: correct",
     "mistake: none. Design: the pool's descriptor sent first and alone (given send_fd; the parent closes its copy once sent, the child once imported); NO events made before the rounds: each round the parent makes a FRESH pair of interprocess events (filled, freed) and sends their two handles right after the block's export data, so no wait can ever bind to another round's record; the child opens the pair, waits on filled, reads, frees its import, records freed, and answers with the round's low byte; the parent checks it, queues s's wait on freed and the free; each side closes (child) or destroys (parent) a round's pair one round later, once the other side can no longer use it; the last pair is left to the given teardown",
     "why it is wrong: -",
     "source: own"]
E = [("""    // TODO 3: receive the pool's descriptor, import the pool, close the
    // descriptor; open the two events the parent made (the child makes none).
""", """    // TODO 3: receive the pool's descriptor, import the pool, close the
    // descriptor; open the two events the parent made (the child makes none).
    // The events come a pair a round, with each block (TODO 4).
    {
        int fd = recv_fd(sock);
        if (fd < 0) { fprintf(stderr, "importer: no pool descriptor came\\n"); return 1; }
        cudaError_t e = cudaMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0);
        close(fd);
        CHECK(e);
    }
"""),
("""        // TODO 4: import the block; the kernel below must not start
        // before the parent's fill of it is done.
""", """        // TODO 4: import the block; the kernel below must not start
        // before the parent's fill of it is done.
        cudaIpcEventHandle_t pair[2];   // this round's filled and freed
        if (!recv_all(sock, pair, sizeof pair)) { fprintf(stderr, "importer: no events came in round %d\\n", r); return 1; }
        // The round before's pair: its wait and its record are queued.
        if (filled != nullptr) CHECK(cudaEventDestroy(filled));
        if (freed != nullptr) CHECK(cudaEventDestroy(freed));
        filled = freed = nullptr;
        CHECK(cudaIpcOpenEventHandle(&filled, pair[0]));
        CHECK(cudaIpcOpenEventHandle(&freed, pair[1]));
        CHECK(cudaMemPoolImportPointer((void**)&block, pool, &data));
        CHECK(cudaStreamWaitEvent(s, filled, 0));
"""),
("""        // TODO 5: give the block back: free the import, let the parent's
        // GPU know when that is done, and answer the parent, all without
        // waiting here for the kernel.
""", """        // TODO 5: give the block back: free the import, let the parent's
        // GPU know when that is done, and answer the parent, all without
        // waiting here for the kernel.
        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaEventRecord(freed, s));
        const unsigned char answer = (unsigned char)r;
        if (!send_all(sock, &answer, 1)) { fprintf(stderr, "importer: could not answer in round %d\\n", r); return 1; }
"""),
("""    // TODO 1: make a pool on device 0 that can be exported as a POSIX
    // file descriptor, send it to the child and close it; make the events
    // the two processes order their GPU work with, and send the child
    // what it needs to open them.
""", """    // TODO 1: make a pool on device 0 that can be exported as a POSIX
    // file descriptor, send it to the child and close it; make the events
    // the two processes order their GPU work with, and send the child
    // what it needs to open them (a fresh pair each round, in TODO 2).
    {
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
        if (!sent) { fprintf(stderr, "exporter: could not send the pool\\n"); return 1; }
    }
"""),
("""        // TODO 2: hand the block to the child, and free it once the
        // child's GPU is done with it and its import; the host waits
        // for neither GPU.
""", """        // TODO 2: hand the block to the child, and free it once the
        // child's GPU is done with it and its import; the host waits
        // for neither GPU.
        cudaEvent_t f = nullptr, d = nullptr;   // this round's pair
        CHECK(cudaEventCreateWithFlags(&f, cudaEventInterprocess | cudaEventDisableTiming));
        CHECK(cudaEventCreateWithFlags(&d, cudaEventInterprocess | cudaEventDisableTiming));
        CHECK(cudaEventRecord(f, s));   // behind the fill
        cudaMemPoolPtrExportData data;
        CHECK(cudaMemPoolExportPointer(&data, block));
        cudaIpcEventHandle_t pair[2];
        CHECK(cudaIpcGetEventHandle(&pair[0], f));
        CHECK(cudaIpcGetEventHandle(&pair[1], d));
        if (!send_all(sock, &data, sizeof data) || !send_all(sock, pair, sizeof pair)) {
            fprintf(stderr, "exporter: could not hand over round %d\\n", r);
            return 1;
        }
        unsigned char answer = 0;
        if (!recv_all(sock, &answer, 1) || answer != (unsigned char)r) {
            fprintf(stderr, "exporter: no answer for round %d\\n", r);
            return 1;
        }
        // The child has recorded d behind the free of its import.
        CHECK(cudaStreamWaitEvent(s, d, 0));
        CHECK(cudaFreeAsync(block, s));
        // The child closed the round before's pair before it answered.
        if (filled != nullptr) CHECK(cudaEventDestroy(filled));
        if (freed != nullptr) CHECK(cudaEventDestroy(freed));
        filled = f;
        freed = d;
"""),
]
fill("/work/main/exercises/day073/ipc_pool.cu", "ipc-pool/correct.cu", H, E)
