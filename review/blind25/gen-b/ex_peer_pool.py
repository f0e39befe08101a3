from lib import build

S = "exercises/day075/peer_pool.cu"

STRUCT_OLD = """    // Yours: whatever else you keep between the calls below.
    // TODO: write this part
};"""
STRUCT_NEW = """    // Yours: whatever else you keep between the calls below.
    cudaEvent_t ready;                    // device 0's: the weights are made (s[0])
    std::vector<cudaEvent_t> produced;    // device 1's, one a round, none reused: round r's chunk is written (s[1])
};"""
SETUP_OLD = """void setup(Two& t) {
    // TODO: your code
    (void)t;
}"""
SETUP_NEW = """void setup(Two& t) {
    for (int d = 0; d < 2; d++) {
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = d;
        CHECK(cudaMemPoolCreate(&t.pool[d], &props));
        CHECK(cudaDeviceSetMemPool(d, t.pool[d]));
    }
    // Device 1's kernels write the chunks, which live in device 0's pool.
    cudaMemAccessDesc desc = {};
    desc.location.type = cudaMemLocationTypeDevice;
    desc.location.id = 1;
    desc.flags = cudaMemAccessFlagsProtReadWrite;
    CHECK(cudaMemPoolSetAccess(t.pool[0], &desc, 1));
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventCreateWithFlags(&t.ready, cudaEventDisableTiming));
    t.produced.clear();
}"""
SHARE_OLD = """    int* w1 = nullptr;
    // TODO: your code
    (void)t;
    (void)w0;
    (void)bytes;
    return w1;"""
SHARE_NEW = """    int* w1 = nullptr;
    CHECK(cudaEventRecord(t.ready, t.s[0]));
    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocAsync((void**)&w1, bytes, t.s[1]));   // device 1's current pool
    CHECK(cudaStreamWaitEvent(t.s[1], t.ready, 0));
    CHECK(cudaMemcpyPeerAsync(w1, 1, w0, 0, bytes, t.s[1]));
    CHECK(cudaSetDevice(0));
    // No event for the pull: every round's produced event, which device
    // 0's stream waits for, is recorded on s[1] after the copy, so main's
    // free of w0 on s[0] already comes after it.
    return w1;"""
ROUND_OLD = """    // TODO: your code
    (void)t;
    (void)r;
    (void)w1;
    (void)n;
    (void)sum;
}"""
ROUND_NEW = """    const size_t bytes = n * sizeof(int);
    int* chunk = nullptr;
    CHECK(cudaSetDevice(1));
    cudaEvent_t done;
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    t.produced.push_back(done);
    // Device 0's memory, asked for on the stream that writes it.
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, bytes, t.pool[0], t.s[1]));
    produce<<<kBlocks, kThreads, 0, t.s[1]>>>(chunk, w1, n, r, kProduceNs);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(done, t.s[1]));
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamWaitEvent(t.s[0], done, 0));
    reduce<<<kBlocks, kThreads, 0, t.s[0]>>>(chunk, n, sum);
    CHECK(cudaGetLastError());
    CHECK(cudaFreeAsync(chunk, t.s[0]));   // after the reduce, its only reader
}"""
FINISH_OLD = """void finish(Two& t, int* w1) {
    // TODO: your code
    (void)t;
    (void)w1;
}"""
FINISH_NEW = """void finish(Two& t, int* w1) {
    CHECK(cudaSetDevice(1));
    CHECK(cudaFreeAsync(w1, t.s[1]));   // after the last produce that reads it
    for (cudaEvent_t e : t.produced) CHECK(cudaEventDestroy(e));
    t.produced.clear();
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventDestroy(t.ready));
    t.ready = nullptr;
}"""

CORRECT = [(STRUCT_OLD, STRUCT_NEW), (SETUP_OLD, SETUP_NEW), (SHARE_OLD, SHARE_NEW), (ROUND_OLD, ROUND_NEW),
           (FINISH_OLD, FINISH_NEW)]

DESIGN = ("setup makes a pinned pool on each device (located there) and makes it current in one loop, grants device 1 "
          "read-write on pool[0], and makes ONE event (ready, device 0); a FRESH event for every round, made on device 1 "
          "in one_round and kept in a vector (never recorded twice) until finish destroys them all (ROUNDS + 1 events); "
          "the pull: w1 by a plain cudaMallocAsync on s[1] BEFORE s[1] waits for ready, then cudaMemcpyPeerAsync on "
          "s[1]; no event for the pull (the rounds' events, recorded on s[1] after it, order main's free of w0); each "
          "chunk by cudaMallocFromPoolAsync from pool[0] on s[1], produce, the round's event recorded on s[1], s[0] waits "
          "for it, reduce, and the chunk freed on s[0] behind the reduce; finish frees w1 on s[1]")

WRONGS = [
    ("w1-left-in-device-1s-pool",
     "the record only: a leak (device 1's copy of the weights is never freed; main's cudaMemPoolDestroy of pool[1] "
     "then returns with an allocation still out); every printed line right",
     "finish destroys the events but never frees w1",
     "finish must give back device 1's weights; a pool destroyed with an allocation outstanding keeps its memory until "
     "the process ends",
     "own",
     [("    CHECK(cudaFreeAsync(w1, t.s[1]));   // after the last produce that reads it\n", "")]),
    ("round-waits-for-device-1-on-the-host",
     "the record only: a host wait in every round (cudaStreamSynchronize of s[1]); every printed line right, the "
     "rounds only slower",
     "one_round makes the host wait for device 1's stream after the produce, then queues the reduce with no stream "
     "wait, as if the host wait were the ordering",
     "the exercise forbids host waits in the rounds: the order belongs on the streams (s[0] waiting for the round's "
     "event); here the host blocks for each 3 ms produce and the devices never overlap",
     "own",
     [("    CHECK(cudaEventRecord(done, t.s[1]));\n    CHECK(cudaSetDevice(0));\n    CHECK(cudaStreamWaitEvent(t.s[0], done, 0));\n",
       "    CHECK(cudaEventRecord(done, t.s[1]));\n    CHECK(cudaStreamSynchronize(t.s[1]));\n    CHECK(cudaSetDevice(0));\n")]),
    ("chunk-size-kept-in-an-int",
     "other arguments only (a chunk of 2048 MiB or more): the size overflows an int and the allocation fails; the "
     "default run and every smaller chunk right",
     "one_round keeps the chunk's byte count in an int (int bytes = n * sizeof(int))",
     "n * sizeof(int) is a size_t; from 2 GiB on it does not fit an int, which turns negative and, widened again for "
     "cudaMallocFromPoolAsync, asks for an impossible size",
     "own",
     [("    const size_t bytes = n * sizeof(int);\n    int* chunk = nullptr;\n",
       "    const int bytes = n * sizeof(int);\n    int* chunk = nullptr;\n")]),
    ("reduce-launched-with-device-1-current",
     "the program's own output: the first round stops with an error at the reduce's launch (the stream belongs to "
     "another device than the current one), no round summed",
     "one_round stays on device 1 after the produce: it records, waits and launches the reduce on s[0] without "
     "making device 0 current again",
     "a kernel runs on the current device and must be launched into a stream of that device; s[0] is device 0's, so "
     "the launch fails",
     "own",
     [("    CHECK(cudaEventRecord(done, t.s[1]));\n    CHECK(cudaSetDevice(0));\n    CHECK(cudaStreamWaitEvent(t.s[0], done, 0));\n    reduce",
       "    CHECK(cudaEventRecord(done, t.s[1]));\n    CHECK(cudaStreamWaitEvent(t.s[0], done, 0));\n    reduce"),
      ("    CHECK(cudaFreeAsync(chunk, t.s[0]));   // after the reduce, its only reader\n",
       "    CHECK(cudaFreeAsync(chunk, t.s[0]));   // after the reduce, its only reader\n    CHECK(cudaSetDevice(0));\n")]),
]


def rows():
    return build("peer-pool", S, "cu", CORRECT, DESIGN, WRONGS)
