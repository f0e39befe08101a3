STUDENT = "exercises/day075/peer_pool.cu"
DIR = "peer-pool"
EXT = "cu"
COMMENT = "//"
CORRECT_HEADER = dict(
    kind="correct (a design of its own)",
    mistake="""none. Each round's chunk is allocated from device 0's pool on device 1's
    stream, produced there, and an event of device 1 (`produced`) is recorded;
    device 0's stream waits for it, reduces, and FREES THE CHUNK ITSELF on device
    0's stream, right after the reduce (no event back to device 1). The weights:
    device 1's stream waits for an event of device 0 recorded after
    init_weights, allocates w1 from its own current pool, and pulls the weights
    with cudaMemcpyPeerAsync; then device 0's stream waits for an event of
    device 1 recorded after that copy, so that main's free of w0 on device 0's
    stream comes after it. Each event is made with its recording device
    current.""",
    why="""it is not: every cross-device use is ordered by an event recorded on the
    writer's device and waited for by the other; the chunk's free is in the
    order of the stream that read it last, after a wait for its writer; w0's
    free comes after the copy that reads it; no host waits in the rounds.""",
    source="""own design from the lesson (day 75, "Whose pool", "Access follows the
    pool", "Stream order across devices"); the runtime API reference,
    cudaMallocFromPoolAsync, cudaMemPoolSetAccess and cudaMemcpyPeerAsync.""")

CORRECT = [
("""    // Yours: whatever else you keep between the calls below.
    // TODO: write this part
};""",
"""    cudaEvent_t weights_made = nullptr;   // device 0: init_weights done
    cudaEvent_t weights_copied = nullptr; // device 1: its copy of the weights done
    cudaEvent_t produced = nullptr;       // device 1: a round's chunk written
};"""),
("""void setup(Two& t) {
    // TODO: your code
    (void)t;
}""",
"""void setup(Two& t) {
    for (int d = 0; d < 2; d++) {
        CHECK(cudaSetDevice(d));
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.handleTypes = cudaMemHandleTypeNone;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = d;
        CHECK(cudaMemPoolCreate(&t.pool[d], &props));
        CHECK(cudaDeviceSetMemPool(d, t.pool[d]));
    }
    cudaMemAccessDesc desc = {};
    desc.location.type = cudaMemLocationTypeDevice;
    desc.location.id = 1;
    desc.flags = cudaMemAccessFlagsProtReadWrite;
    CHECK(cudaMemPoolSetAccess(t.pool[0], &desc, 1));
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventCreateWithFlags(&t.weights_made, cudaEventDisableTiming));
    CHECK(cudaSetDevice(1));
    CHECK(cudaEventCreateWithFlags(&t.weights_copied, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&t.produced, cudaEventDisableTiming));
    CHECK(cudaSetDevice(0));
}"""),
("""    int* w1 = nullptr;
    // TODO: your code
    (void)t;
    (void)w0;
    (void)bytes;
    return w1;""",
"""    int* w1 = nullptr;
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventRecord(t.weights_made, t.s[0]));
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(t.s[1], t.weights_made, 0));
    CHECK(cudaMallocAsync((void**)&w1, bytes, t.s[1]));
    CHECK(cudaMemcpyPeerAsync(w1, 1, w0, 0, bytes, t.s[1]));
    CHECK(cudaEventRecord(t.weights_copied, t.s[1]));
    CHECK(cudaSetDevice(0));
    // main frees w0 on device 0's stream: after the copy that reads it.
    CHECK(cudaStreamWaitEvent(t.s[0], t.weights_copied, 0));
    return w1;"""),
("""    // TODO: your code
    (void)t;
    (void)r;
    (void)w1;
    (void)n;
    (void)sum;
}""",
"""    int* chunk = nullptr;
    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[1]));
    produce<<<kBlocks, kThreads, 0, t.s[1]>>>(chunk, w1, n, r, kProduceNs);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t.produced, t.s[1]));
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamWaitEvent(t.s[0], t.produced, 0));
    reduce<<<kBlocks, kThreads, 0, t.s[0]>>>(chunk, n, sum);
    CHECK(cudaGetLastError());
    CHECK(cudaFreeAsync(chunk, t.s[0]));
}"""),
("""void finish(Two& t, int* w1) {
    // TODO: your code
    (void)t;
    (void)w1;
}""",
"""void finish(Two& t, int* w1) {
    CHECK(cudaSetDevice(1));
    if (w1 != nullptr) CHECK(cudaFreeAsync(w1, t.s[1]));
    CHECK(cudaEventDestroy(t.weights_copied));
    CHECK(cudaEventDestroy(t.produced));
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventDestroy(t.weights_made));
}"""),
]

WRONG = [
("events-made-on-device-0", dict(
    kind="the wrong device: every event made while device 0 is current",
    mistake="""setup makes all three events in one place, with device 0 current,
    including the two that device 1's stream records.""",
    why="""an event belongs to the device current when it was made, and
    cudaEventRecord needs the event and the stream on the same device: the
    first record on device 1's stream fails (invalid resource handle) and the
    program stops.""",
    source="""flashlight/flashlight#927 ("cudaEventRecord(event, stream) requires the
    event and stream to be from the same device"); the lesson ("Stream order
    across devices": the event and the stream of a record on one device)."""),
 [("""    CHECK(cudaEventCreateWithFlags(&t.weights_made, cudaEventDisableTiming));
    CHECK(cudaSetDevice(1));
    CHECK(cudaEventCreateWithFlags(&t.weights_copied, cudaEventDisableTiming));""",
   """    CHECK(cudaEventCreateWithFlags(&t.weights_made, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&t.weights_copied, cudaEventDisableTiming));"""),
  ("""    CHECK(cudaEventCreateWithFlags(&t.produced, cudaEventDisableTiming));
    CHECK(cudaSetDevice(0));
}""",
   """    CHECK(cudaEventCreateWithFlags(&t.produced, cudaEventDisableTiming));
}""")]),
("weights-freed-before-their-copy", dict(
    kind="ordering: the source of a copy on another stream given back unordered",
    mistake="""share_weights queues the peer copy on device 1's stream but does not
    make device 0's stream wait for it, so main's cudaFreeAsync(w0) on device
    0's stream is ordered after init_weights only.""",
    why="""the free may run while device 1's copy still reads w0; the pool may hand
    that memory out again, and device 1's weights come out wrong (or a use
    after free is seen on device 0's pool).""",
    source="""meta-pytorch/torchrec#4231 (a copy running on a side stream while its
    source tensor's memory was released to the allocator on the default stream:
    the allocator reused it and corrupted the in-flight copy)."""),
 [("""    // main frees w0 on device 0's stream: after the copy that reads it.
    CHECK(cudaStreamWaitEvent(t.s[0], t.weights_copied, 0));
""", "")]),
("access-set-on-default-pool", dict(
    kind="the wrong pool: device 1's access given on device 0's default pool",
    mistake="""setup grants device 1 read-write access on the pool that
    cudaDeviceGetDefaultMemPool(0) returns, taking "the device's pool" for the
    one the program made and set current.""",
    why="""access is a property of each pool: the default pool is no longer the
    one the chunks come from, so device 1 has no access to device 0's pool and
    its first write to a chunk faults (the harness prints "none").""",
    source="""cupy/cupy#5191 ("Use the 'current' mempool instead of the 'default' one":
    the two are different pools once cudaDeviceSetMemPool has been called)."""),
 [("""    CHECK(cudaMemPoolSetAccess(t.pool[0], &desc, 1));""",
   """    cudaMemPool_t pool0 = nullptr;
    CHECK(cudaDeviceGetDefaultMemPool(&pool0, 0));
    CHECK(cudaMemPoolSetAccess(pool0, &desc, 1));""")]),
]
