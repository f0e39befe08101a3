STUDENT = "exercises/day075/peer_pool.cu"
DIR = "peer-pool"
EXT = "cu"
COMMENT = "//"
CORRECT_HEADER = {
    "kind": "correct",
    "mistake": "none: a pool per device made current, device 1 given read-write access to device 0's pool; the weights copied to device 1 after an event of device 0's stream; each chunk allocated from device 0's pool on device 1's stream, produced there, reduced on device 0 after an event, and freed on device 0's stream after the reduce.",
    "why it is wrong": "it is not: the design the lesson asks for.",
    "source": "own (lesson day075; Programming Guide, Stream Ordered Memory Allocator, multi-GPU access; sample streamOrderedAllocationP2P)",
}
CORRECT = [
("""    // Yours: whatever else you keep between the calls below.
    // TODO: write this part
""", """    // Yours: whatever else you keep between the calls below.
    cudaEvent_t weights_made;   // device 0's: recorded after init_weights
    cudaEvent_t produced;       // device 1's: recorded after each produce
"""),
("""void setup(Two& t) {
    // TODO: your code
    (void)t;
}""", """void setup(Two& t) {
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
    // Device 1 writes the chunks into device 0's pool.
    cudaMemAccessDesc desc = {};
    desc.location.type = cudaMemLocationTypeDevice;
    desc.location.id = 1;
    desc.flags = cudaMemAccessFlagsProtReadWrite;
    CHECK(cudaMemPoolSetAccess(t.pool[0], &desc, 1));
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventCreateWithFlags(&t.weights_made, cudaEventDisableTiming));
    CHECK(cudaSetDevice(1));
    CHECK(cudaEventCreateWithFlags(&t.produced, cudaEventDisableTiming));
    CHECK(cudaSetDevice(0));
}"""),
("""    int* w1 = nullptr;
    // TODO: your code
    (void)t;
    (void)w0;
    (void)bytes;
    return w1;""", """    int* w1 = nullptr;
    // Device 1's stream waits for device 0's stream, not the host.
    CHECK(cudaEventRecord(t.weights_made, t.s[0]));
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(t.s[1], t.weights_made, 0));
    CHECK(cudaMallocAsync((void**)&w1, bytes, t.s[1]));   // device 1's current pool
    CHECK(cudaMemcpyPeerAsync(w1, 1, w0, 0, bytes, t.s[1]));
    // w0's free on s[0] comes after the first round's wait for s[1], which
    // is after this copy.
    CHECK(cudaSetDevice(0));
    return w1;"""),
("""    // TODO: your code
    (void)t;
    (void)r;
    (void)w1;
    (void)n;
    (void)sum;
}""", """    int* chunk = nullptr;
    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[1]));
    produce<<<kBlocks, kThreads, 0, t.s[1]>>>(chunk, w1, n, r, kProduceNs);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t.produced, t.s[1]));
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamWaitEvent(t.s[0], t.produced, 0));
    reduce<<<kBlocks, kThreads, 0, t.s[0]>>>(chunk, n, sum);
    CHECK(cudaGetLastError());
    CHECK(cudaFreeAsync(chunk, t.s[0]));   // after the reduce, itself after produce
}"""),
("""void finish(Two& t, int* w1) {
    // TODO: your code
    (void)t;
    (void)w1;
}""", """void finish(Two& t, int* w1) {
    CHECK(cudaSetDevice(1));
    CHECK(cudaFreeAsync(w1, t.s[1]));   // after the last produce that read it
    CHECK(cudaEventDestroy(t.produced));
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventDestroy(t.weights_made));
}"""),
]

WRONG = [
    ("weights-host-wait", {
        "kind": "a host wait where the lesson forbids it",
        "mistake": "share_weights waits on the host for device 0's stream (cudaStreamSynchronize) before device 1 copies the weights, instead of an event that device 1's stream waits for.",
        "why it is wrong": "the harness says device 1 asks for the weights while they are still being made \"so a wait on the host would be seen waiting\" (init_weights takes 3 ms); the lesson's \"Stream order across devices\": the device that writes records, the device that reads waits (cudaStreamWaitEvent works across devices). Every sum is right.",
        "source": "own (the common first fix for cross-device order: synchronize the producer's stream)",
    }, [
        ("""    CHECK(cudaEventRecord(t.weights_made, t.s[0]));
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(t.s[1], t.weights_made, 0));""",
         """    CHECK(cudaStreamSynchronize(t.s[0]));   // the weights are made
    CHECK(cudaSetDevice(1));"""),
    ]),
    ("chunk-on-producer-device", {
        "kind": "an API misread from the docs (whose pool)",
        "mistake": "one_round allocates the chunk with a plain cudaMallocAsync on device 1's stream, believing it takes device 0's pool because device 0's pool was given to device 1; to make the reduce work, setup also gives device 0 read-write access to device 1's pool.",
        "why it is wrong": "cudaMallocAsync takes the block from the current pool of the stream's device (lesson, \"Whose pool\"), here device 1's: every chunk lands in device 1's memory and device 0 reads it over the link, where the exercise asks for device 0's memory written by device 1. Every sum is right.",
        "source": "own (lesson's \"Whose pool\"; runtime reference cudaMallocAsync vs cudaMallocFromPoolAsync)",
    }, [
        ("""    CHECK(cudaMemPoolSetAccess(t.pool[0], &desc, 1));
""", """    CHECK(cudaMemPoolSetAccess(t.pool[0], &desc, 1));
    desc.location.id = 0;   // and device 0 reads what device 1 wrote
    CHECK(cudaMemPoolSetAccess(t.pool[1], &desc, 1));
"""),
        ("    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[1]));",
         "    CHECK(cudaMallocAsync((void**)&chunk, n * sizeof(int), t.s[1]));"),
    ]),
    ("copy-before-alloc-ordered", {
        "kind": "race (a block used on a stream not ordered after its allocation)",
        "mistake": "device 1's copy of the weights is allocated on device 1's stream, but the copy is queued on device 0's stream (already after init_weights), and device 1's stream then waits for an event after the copy.",
        "why it is wrong": "the block is only valid in the order of the stream it was allocated on; s[0] is not ordered after s[1]'s allocation, so the copy may write the block before the pool has made it available (runtime reference, cudaMallocAsync: the allocation may be used in the stream's order, other streams must be ordered after it; lesson day070/075, a block used on another stream needs an event). On a fresh pool nothing else holds the memory, so the weights come out right.",
        "source": "own",
    }, [
        ("""    CHECK(cudaEventRecord(t.weights_made, t.s[0]));
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(t.s[1], t.weights_made, 0));
    CHECK(cudaMallocAsync((void**)&w1, bytes, t.s[1]));   // device 1's current pool
    CHECK(cudaMemcpyPeerAsync(w1, 1, w0, 0, bytes, t.s[1]));""",
         """    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocAsync((void**)&w1, bytes, t.s[1]));   // device 1's current pool
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemcpyPeerAsync(w1, 1, w0, 0, bytes, t.s[0]));   // right after init_weights
    CHECK(cudaEventRecord(t.weights_made, t.s[0]));
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(t.s[1], t.weights_made, 0));"""),
    ]),
    ("finish-cudafree", {
        "kind": "race (a synchronous free that does not wait) / a device wait, by driver",
        "mistake": "finish gives device 1's weights back with cudaFree instead of cudaFreeAsync on device 1's stream, believing cudaFree waits for the kernels that read them.",
        "why it is wrong": "since CUDA 12 the runtime reference says cudaFree \"will not perform any implicit synchronization when the pointer was allocated with cudaMallocAsync or cudaMallocFromPoolAsync. Callers must ensure that all accesses to these pointer have completed\": the last rounds' produce kernels on s[1] may still read w1 when it goes back to the pool (nothing allocates after it here, so the sums stay right). Where a driver does synchronize, it is a device-wide wait, which the exercise forbids (\"no device waits as a whole\").",
        "source": "https://github.com/kokkos/kokkos/issues/9307 (cudaFree does not imply a device synchronization for stream-ordered pointers; quotes the CUDA 13.0 runtime reference)",
    }, [
        ("    CHECK(cudaFreeAsync(w1, t.s[1]));   // after the last produce that read it",
         "    CHECK(cudaFree(w1));   // waits for the work on it"),
    ]),
    ("events-kept", {
        "kind": "a leak",
        "mistake": "finish frees the weights but never destroys the two events setup made.",
        "why it is wrong": "finish is to give back \"whatever else setup made, except the pools and streams\" (the harness's comment); the events live on until the process ends. Nothing in the output shows it.",
        "source": "own",
    }, [
        ("""    CHECK(cudaEventDestroy(t.produced));
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventDestroy(t.weights_made));""", """    CHECK(cudaSetDevice(0));"""),
    ]),
]
