from mk import student, sub, build

T = student("exercises/day075/peer_pool.cu")

STRUCT_OLD = """    // Yours: whatever else you keep between the calls below.
    // TODO: write this part
};"""
STRUCT_NEW = """    cudaEvent_t ready;      // made on device 0: the weights pushed into device 1's copy
    cudaEvent_t produced;   // made on device 1: the round's chunk written
};"""

SETUP_OLD = """void setup(Two& t) {
    // TODO: your code
    (void)t;
}"""
SETUP_NEW = """void setup(Two& t) {
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
    // Device 1 writes the chunks, which live in device 0's pool.
    cudaMemAccessDesc desc = {};
    desc.location.type = cudaMemLocationTypeDevice;
    desc.location.id = 1;
    desc.flags = cudaMemAccessFlagsProtReadWrite;
    CHECK(cudaMemPoolSetAccess(t.pool[0], &desc, 1));
    CHECK(cudaSetDevice(1));
    CHECK(cudaEventCreateWithFlags(&t.produced, cudaEventDisableTiming));
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventCreateWithFlags(&t.ready, cudaEventDisableTiming));
}"""

SHARE_OLD = """    int* w1 = nullptr;
    // TODO: your code
    (void)t;
    (void)w0;
    (void)bytes;
    return w1;"""
SHARE_NEW = """    int* w1 = nullptr;
    // Device 0 pushes its weights: w1 comes from device 1's pool but is
    // allocated on device 0's stream, behind init_weights, so neither the
    // allocation nor the copy waits for anything; device 1's stream waits
    // once for the push, and the caller's free of w0 on device 0's stream
    // comes after the copy in that stream's own order.
    CHECK(cudaMallocFromPoolAsync((void**)&w1, bytes, t.pool[1], t.s[0]));
    CHECK(cudaMemcpyPeerAsync(w1, 1, w0, 0, bytes, t.s[0]));
    CHECK(cudaEventRecord(t.ready, t.s[0]));
    CHECK(cudaStreamWaitEvent(t.s[1], t.ready, 0));
    return w1;"""

ROUND_OLD = """void one_round(Two& t, int r, const int* w1, size_t n, unsigned long long* sum) {
    // TODO: your code
    (void)t;
    (void)r;
    (void)w1;
    (void)n;
    (void)sum;
}"""
ROUND_NEW = """void one_round(Two& t, int r, const int* w1, size_t n, unsigned long long* sum) {
    int* chunk = nullptr;
    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[1]));
    produce<<<kBlocks, kThreads, 0, t.s[1]>>>(chunk, w1, n, r, kProduceNs);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t.produced, t.s[1]));
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamWaitEvent(t.s[0], t.produced, 0));
    reduce<<<kBlocks, kThreads, 0, t.s[0]>>>(chunk, n, sum);
    CHECK(cudaGetLastError());
    CHECK(cudaFreeAsync(chunk, t.s[0]));   // after its reader; the pool orders its next use
}"""

FINISH_OLD = """void finish(Two& t, int* w1) {
    // TODO: your code
    (void)t;
    (void)w1;
}"""
FINISH_NEW = """void finish(Two& t, int* w1) {
    // w1 was allocated on device 0's stream and is freed there: that stream
    // waited for the last round's produced, after the last kernel that read
    // w1.
    CHECK(cudaSetDevice(0));
    CHECK(cudaFreeAsync(w1, t.s[0]));
    CHECK(cudaEventDestroy(t.ready));
    CHECK(cudaSetDevice(1));
    CHECK(cudaEventDestroy(t.produced));
    CHECK(cudaSetDevice(0));
}"""

C = T
for o, n in [(STRUCT_OLD, STRUCT_NEW), (SETUP_OLD, SETUP_NEW), (SHARE_OLD, SHARE_NEW), (ROUND_OLD, ROUND_NEW), (FINISH_OLD, FINISH_NEW)]:
    C = sub(C, o, n)

CORRECT = ("correct",
           "none: device 0 pushes the weights: w1 allocated from device 1's pool on device 0's stream (cudaMallocFromPoolAsync with a pool of another device), cudaMemcpyPeerAsync on the same stream right behind init_weights, one ready event that device 1's stream waits for; each chunk from device 0's pool on device 1's stream, freed on device 0's stream after its reduce; w1 freed in finish on device 0's stream, ordered after device 1's last read only through the last round's produced wait; two events, each made on its stream's device.",
           "none.",
           "none (written from the lesson and the student file).")

W = [
    ("weights-ready-recorded-before-the-push",
     ("wrong (the record: device 1 reads w1 with no order after the copy that writes it; the sums show it only when the copy outlasts produce's 3 ms spin, with large chunks)",
      "share_weights records ready on device 0's stream before it queues the peer copy (the record meant as 'the weights are made'), then copies.",
      "device 1's stream waits for a record made after init_weights but before the copy: produce may read w1 while the copy still writes it; with 4 MiB the copy takes microseconds and produce spins 3 ms first, so the sums come out right, but nothing orders them.",
      "sgl-project/sglang#14214 (an event whose record does not come after the work the other stream must wait for), torch/cutorch#192 (cross-device copies need an event recorded after the copy, not before)"),
     [("""    CHECK(cudaMemcpyPeerAsync(w1, 1, w0, 0, bytes, t.s[0]));
    CHECK(cudaEventRecord(t.ready, t.s[0]));
""", """    CHECK(cudaEventRecord(t.ready, t.s[0]));
    CHECK(cudaMemcpyPeerAsync(w1, 1, w0, 0, bytes, t.s[0]));
""")]),
    ("weights-left-to-the-pool-destroy",
     ("wrong (leak: device 1's weights never freed; the output is right)",
      "finish frees nothing of w1, on the reasoning that main destroys device 1's pool at the end and a pool's destruction takes its memory with it.",
      "cudaMemPoolDestroy with a block still allocated returns at once and releases the pool's memory only once its allocations are freed (Runtime API reference, cudaMemPoolDestroy): w1 is an allocation never freed, a leak the record shows at the exit.",
      "NVIDIA/warp#1429 (allocations left to the destruction of what owns them instead of freed), llnl/camp#71"),
     [("""    CHECK(cudaSetDevice(0));
    CHECK(cudaFreeAsync(w1, t.s[0]));
    CHECK(cudaEventDestroy(t.ready));""", """    (void)w1;   // main destroys device 1's pool, and w1 with it
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventDestroy(t.ready));""")]),
    ("weights-pushed-with-device-1-current",
     ("wrong (a copy queued on device 0's stream with device 1 current: it may fail, or copy in the wrong device's context, depending on the driver)",
      "share_weights makes device 1 current to allocate w1 (device 1's memory) and queues the copy with cudaMemcpyAsync (cudaMemcpyDefault) on device 0's stream while device 1 is still current, then records ready and makes device 0 current again.",
      "the Programming Guide's addendum on cudaMemcpyAsync asks for the stream's device to be current for memory from a pool (cudaMemcpyPeerAsync is exempt): with device 1 current the call may return an invalid-value error, or be queued in device 1's context rather than on device 0's stream's order, so that ready no longer follows it.",
      "meta-pytorch/torchcomms#2718 (cudaMemcpyAsync failed with cudaErrorInvalidValue when the calling thread's current device was not the stream's), torch/cutorch#212 (which device and stream a cross-device copy runs on depends on the current device)"),
     [("""    CHECK(cudaMallocFromPoolAsync((void**)&w1, bytes, t.pool[1], t.s[0]));
    CHECK(cudaMemcpyPeerAsync(w1, 1, w0, 0, bytes, t.s[0]));
    CHECK(cudaEventRecord(t.ready, t.s[0]));
    CHECK(cudaStreamWaitEvent(t.s[1], t.ready, 0));
""", """    CHECK(cudaSetDevice(1));   // w1 is device 1's memory
    CHECK(cudaMallocFromPoolAsync((void**)&w1, bytes, t.pool[1], t.s[0]));
    CHECK(cudaMemcpyAsync(w1, w0, bytes, cudaMemcpyDefault, t.s[0]));
    CHECK(cudaEventRecord(t.ready, t.s[0]));
    CHECK(cudaStreamWaitEvent(t.s[1], t.ready, 0));
    CHECK(cudaSetDevice(0));
""")]),
    ("last-chunk-freed-on-device-1-in-finish",
     ("wrong (the record only: the last round's chunk freed with no order after device 0's reduce of it)",
      "each round frees the previous round's chunk on device 0's stream (after that round's reduce, in the stream's order) and keeps its own for the next round; finish frees the last one on device 1's stream, the stream that allocated it, since no round follows.",
      "device 1's stream is ordered after nothing device 0 did: the last chunk goes back to device 0's pool while device 0's reduce may still read it; nothing allocates after it, so the sums are right, and only the record shows a free unordered with the last read.",
      "meta-pytorch/torchrec#4231 (a block given back while another stream still read it: reused, corrupt data only in some runs), NVIDIA/TensorRT-LLM#15265 (an event wait orders the work but not the allocator's reuse)"),
     [("    cudaEvent_t produced;   // made on device 1: the round's chunk written\n};",
       "    cudaEvent_t produced;   // made on device 1: the round's chunk written\n    int* previous;          // the last round's chunk, freed one round later\n};"),
      ("    CHECK(cudaFreeAsync(chunk, t.s[0]));   // after its reader; the pool orders its next use\n",
       "    if (t.previous != nullptr) CHECK(cudaFreeAsync(t.previous, t.s[0]));   // read by the previous round's reduce, earlier on this stream\n    t.previous = chunk;\n"),
      ("    CHECK(cudaSetDevice(1));\n    CHECK(cudaEventDestroy(t.produced));\n",
       "    CHECK(cudaSetDevice(1));\n    if (t.previous != nullptr) CHECK(cudaFreeAsync(t.previous, t.s[1]));   // the last chunk, on the stream that allocated it\n    t.previous = nullptr;\n    CHECK(cudaEventDestroy(t.produced));\n")]),
]

build("peer-pool", "cu", "//", C, CORRECT, W)
