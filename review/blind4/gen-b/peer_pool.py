STUDENT = "exercises/day075/peer_pool.cu"
DIR = "peer-pool"
EXT = "cu"
COMMENT = "//"
CORRECT_HEADER = {
    "kind": "correct",
    "mistake": "none: the weights are pushed, not pulled: device 1's copy is allocated on device 1's stream, device 0's stream waits for that allocation and copies into it with cudaMemcpyPeerAsync right behind init_weights, and device 1's stream waits for the copy's event; each chunk comes from device 0's pool (cudaMallocFromPoolAsync on device 1's stream), device 0's stream waits for the produce event and reduces; a chunk is freed on device 1's stream, in its own allocation order, one round later, after that stream waited for device 0's reduce event (so the next round's produce is queued before the wait and still overlaps the reduce); finish frees the last chunk the same way, then device 1's weights on device 1's stream.",
    "why it is wrong": "it is not: the lesson leaves \"which events you make, where each block is freed and on which stream, and how the weights travel\" to the student. The harness's free of w0 on device 0's stream comes after the copy in that stream's order; every chunk is freed on the stream that allocated it, after an event that follows its last reader. The copy writes into a pool device 0 has no access to, which the lesson measured to work for cudaMemcpyPeerAsync in the other direction; the Guide's addendum names it as a case the driver handles.",
    "source": "own design; NVIDIA's sample streamOrderedAllocationP2P for the pool access call; the lesson's \"Access follows the pool\"",
}
CORRECT = [
("""    // Yours: whatever else you keep between the calls below.
    // TODO: write this part
};""", """    // Yours: whatever else you keep between the calls below.
    cudaEvent_t w1_made = nullptr;    // device 1: w1 allocated on s[1]
    cudaEvent_t copied = nullptr;     // device 0: the weights copied into w1 on s[0]
    cudaEvent_t produced = nullptr;   // device 1: a round's chunk written on s[1]
    cudaEvent_t reduced = nullptr;    // device 0: a round's chunk added up on s[0]
    int* pending = nullptr;           // the last round's chunk, not yet freed
};"""),
("""void setup(Two& t) {
    // TODO: your code
    (void)t;
}""", """void setup(Two& t) {
    for (int d = 0; d < 2; d++) {
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = d;
        CHECK(cudaMemPoolCreate(&t.pool[d], &props));
        CHECK(cudaDeviceSetMemPool(d, t.pool[d]));
    }
    // Device 1 writes the chunks, which are device 0's memory: access to
    // the whole pool, set once while it is empty.
    cudaMemAccessDesc desc = {};
    desc.location.type = cudaMemLocationTypeDevice;
    desc.location.id = 1;
    desc.flags = cudaMemAccessFlagsProtReadWrite;
    CHECK(cudaMemPoolSetAccess(t.pool[0], &desc, 1));
    // Each event on the device whose stream records it.
    CHECK(cudaSetDevice(1));
    CHECK(cudaEventCreateWithFlags(&t.w1_made, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&t.produced, cudaEventDisableTiming));
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventCreateWithFlags(&t.copied, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&t.reduced, cudaEventDisableTiming));
}"""),
("""    int* w1 = nullptr;
    // TODO: your code
    (void)t;
    (void)w0;
    (void)bytes;
    return w1;""", """    int* w1 = nullptr;
    // Device 1's copy, from device 1's current pool, in s[1]'s order.
    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocAsync((void**)&w1, bytes, t.s[1]));
    CHECK(cudaEventRecord(t.w1_made, t.s[1]));
    // Pushed by device 0's stream, right behind init_weights, once w1 exists.
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamWaitEvent(t.s[0], t.w1_made, 0));
    CHECK(cudaMemcpyPeerAsync(w1, 1, w0, 0, bytes, t.s[0]));
    CHECK(cudaEventRecord(t.copied, t.s[0]));
    // Device 1 reads it only after the copy.
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(t.s[1], t.copied, 0));
    CHECK(cudaSetDevice(0));
    return w1;"""),
("""    // TODO: your code
    (void)t;
    (void)r;
    (void)w1;
    (void)n;
    (void)sum;
}""", """    const size_t bytes = n * sizeof(int);
    // Device 1: the chunk from device 0's pool, in the order of the stream
    // that writes it.
    CHECK(cudaSetDevice(1));
    int* chunk = nullptr;
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, bytes, t.pool[0], t.s[1]));
    produce<<<kBlocks, kThreads, 0, t.s[1]>>>(chunk, w1, n, r, kProduceNs);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t.produced, t.s[1]));
    // The last round's chunk goes back on the stream that allocated it,
    // after device 0 has added it up (the wait is queued before `reduced`
    // is recorded again below, so it waits for the last round's reduce).
    if (t.pending != nullptr) {
        CHECK(cudaStreamWaitEvent(t.s[1], t.reduced, 0));
        CHECK(cudaFreeAsync(t.pending, t.s[1]));
        t.pending = nullptr;
    }
    // Device 0: add it up once device 1 has written it.
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamWaitEvent(t.s[0], t.produced, 0));
    reduce<<<kBlocks, kThreads, 0, t.s[0]>>>(chunk, n, sum);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t.reduced, t.s[0]));
    t.pending = chunk;
}"""),
("""void finish(Two& t, int* w1) {
    // TODO: your code
    (void)t;
    (void)w1;
}""", """void finish(Two& t, int* w1) {
    CHECK(cudaSetDevice(1));
    if (t.pending != nullptr) {
        CHECK(cudaStreamWaitEvent(t.s[1], t.reduced, 0));
        CHECK(cudaFreeAsync(t.pending, t.s[1]));
        t.pending = nullptr;
    }
    CHECK(cudaFreeAsync(w1, t.s[1]));   // read last by produce, on s[1]
    CHECK(cudaEventDestroy(t.w1_made));
    CHECK(cudaEventDestroy(t.produced));
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventDestroy(t.copied));
    CHECK(cudaEventDestroy(t.reduced));
}"""),
]

WRONG = [
    ("peer-access-instead-of-pool-access", {
        "kind": "an API that does not apply (device peer access instead of the pool's access)",
        "mistake": "setup gives device 1 access with cudaDeviceEnablePeerAccess(0) on device 1, as for cudaMalloc memory, instead of cudaMemPoolSetAccess on device 0's pool.",
        "why it is wrong": "peer access \"does not reach pools\" (the lesson; the Programming Guide's section on device accessibility for multi-GPU support): device 1's access to device 0's pool stays none, and produce's first write into a chunk is an illegal address that leaves the context unusable.",
        "source": "NVIDIA/warp#1458 (review thread: \"for memory allocated with cudaMallocAsync ... is plain CUDA peer access enough for another GPU to dereference it or is separate memory-pool access required?\"); NVIDIA/cccl#2587 (\"CUDA controls this state on the pool level\")",
    }, [
        ("""    cudaMemAccessDesc desc = {};
    desc.location.type = cudaMemLocationTypeDevice;
    desc.location.id = 1;
    desc.flags = cudaMemAccessFlagsProtReadWrite;
    CHECK(cudaMemPoolSetAccess(t.pool[0], &desc, 1));""", """    CHECK(cudaSetDevice(1));
    CHECK(cudaDeviceEnablePeerAccess(0, 0));   // device 1 may reach device 0's memory
    CHECK(cudaSetDevice(0));"""),
    ]),
    ("pool-access-read-only", {
        "kind": "an API used with a wrong flag (read access for a device that writes)",
        "mistake": "device 1 is given cudaMemAccessFlagsProtRead on device 0's pool (\"device 1 only needs to reach it\").",
        "why it is wrong": "device 1's produce writes every chunk: a write through read-only access faults like no access at all (the lesson: \"Read-only access and a kernel that writes give the same\"), and the harness prints device 1's access as \"read\".",
        "source": "rapidsai/rmm#1753 (access flags other than read_write passed to cudaMemPoolSetAccess for a cuda_async_memory_resource); the lesson's \"Access follows the pool\"",
    }, [
        ("    desc.flags = cudaMemAccessFlagsProtReadWrite;", "    desc.flags = cudaMemAccessFlagsProtRead;"),
    ]),
    ("produce-before-weights-arrive", {
        "kind": "race (a missing wait: device 1 reads its weights before the copy lands)",
        "mistake": "device 1's stream does not wait for the copy's event: the student reasons that the copy was queued before any produce, so it runs first.",
        "why it is wrong": "the copy is queued on device 0's stream, behind init_weights' 50 ms; device 1's stream knows nothing of it (the lesson: \"a stream of device 0 knows nothing of the work on device 1. What orders them is an event\"). The first rounds multiply by the memory w1 held before: wrong sums.",
        "source": "pytorch/pytorch#82050 (\"data may not initialized if the kernel ... on the default stream not finished\" when work moves to another stream); pytorch/pytorch#2702",
    }, [
        ("""    // Device 1 reads it only after the copy.
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(t.s[1], t.copied, 0));
    CHECK(cudaSetDevice(0));
    return w1;""", """    return w1;"""),
    ]),
    ("reduced-recorded-before-reduce", {
        "kind": "race (a misplaced event: recorded before the work it stands for)",
        "mistake": "device 0 records its `reduced` event before it launches reduce, right after its wait for the produce event.",
        "why it is wrong": "device 1's free of the chunk waits for that record, which comes before the reduce: the chunk goes back to device 0's pool while reduce may still read it, and the next allocation can hand the same memory to the next round's produce (the lesson: \"a block used or freed on one device with nothing ordering it after the other device's work on it fails, even when the sums are right\").",
        "source": "own (the order mistake sgl-project/sglang#14214 deals with, a record and a wait in the wrong places)",
    }, [
        ("""    reduce<<<kBlocks, kThreads, 0, t.s[0]>>>(chunk, n, sum);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t.reduced, t.s[0]));""", """    CHECK(cudaEventRecord(t.reduced, t.s[0]));
    reduce<<<kBlocks, kThreads, 0, t.s[0]>>>(chunk, n, sum);
    CHECK(cudaGetLastError());"""),
    ]),
    ("both-pools-on-device-0-unchecked", {
        "kind": "errors ignored (a copied pool description and unchecked calls)",
        "mistake": "setup fills one cudaMemPoolProps with location id 0 and makes both pools from it, and does not check what cudaDeviceSetMemPool returns (\"the harness prints whether it worked\").",
        "why it is wrong": "the second pool lives on device 0, so making it device 1's current pool fails with cudaErrorInvalidValue (the lesson: \"The pool must be located on dev; any other is refused\"), silently: device 1 keeps its default pool, the harness prints \"no\" for device 1, and pool[1] is a second pool of device 0; the refusal also stays the runtime's last error, so the harness's next cudaGetLastError (after init_weights) stops the program with it.",
        "source": "JuliaGPU/CUDA.jl#3166 (pool access granted without checking what the devices can do, the failure \"deferred ... to a later allocation\"); the lesson's demo (\"making device 0's pool device 1's current pool: invalid argument\")",
    }, [
        ("""    for (int d = 0; d < 2; d++) {
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = d;
        CHECK(cudaMemPoolCreate(&t.pool[d], &props));
        CHECK(cudaDeviceSetMemPool(d, t.pool[d]));
    }""", """    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    for (int d = 0; d < 2; d++) {
        cudaMemPoolCreate(&t.pool[d], &props);
        cudaDeviceSetMemPool(d, t.pool[d]);
    }"""),
    ]),
]
