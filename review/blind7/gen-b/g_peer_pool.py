from mk import *
EX = "peer-pool"
s = read("exercises/day075/peer_pool.cu")
s = sub(s, '''    // Yours: whatever else you keep between the calls below.
    // TODO: write this part
''', '''    // Yours: whatever else you keep between the calls below.
    cudaEvent_t ready = nullptr;      // device 0: the weights are made
    cudaEvent_t copied = nullptr;     // device 1: its copy of them is done
    cudaEvent_t produced = nullptr;   // device 1: this round's chunk is written
''')
s = sub(s, '''void setup(Two& t) {
    // TODO: your code
    (void)t;
}''', '''void setup(Two& t) {
    for (int d = 0; d < 2; d++) {
        CHECK(cudaSetDevice(d));
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
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
    CHECK(cudaSetDevice(1));
    CHECK(cudaEventCreateWithFlags(&t.copied, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&t.produced, cudaEventDisableTiming));
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventCreateWithFlags(&t.ready, cudaEventDisableTiming));
}''')
s = sub(s, '''    int* w1 = nullptr;
    // TODO: your code
    (void)t;
    (void)w0;
    (void)bytes;
    return w1;''', '''    int* w1 = nullptr;
    CHECK(cudaEventRecord(t.ready, t.s[0]));
    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocAsync((void**)&w1, bytes, t.s[1]));   // device 1's pool
    CHECK(cudaStreamWaitEvent(t.s[1], t.ready, 0));
    CHECK(cudaMemcpyPeerAsync(w1, 1, w0, 0, bytes, t.s[1]));
    CHECK(cudaEventRecord(t.copied, t.s[1]));
    CHECK(cudaSetDevice(0));
    // The caller frees w0 on device 0's stream: after the copy read it.
    CHECK(cudaStreamWaitEvent(t.s[0], t.copied, 0));
    return w1;''')
s = sub(s, '''    // TODO: your code
    (void)t;
    (void)r;
    (void)w1;
    (void)n;
    (void)sum;
}''', '''    int* chunk = nullptr;
    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[1]));
    produce<<<kBlocks, kThreads, 0, t.s[1]>>>(chunk, w1, n, r, kProduceNs);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t.produced, t.s[1]));
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamWaitEvent(t.s[0], t.produced, 0));
    reduce<<<kBlocks, kThreads, 0, t.s[0]>>>(chunk, n, sum);
    CHECK(cudaGetLastError());
    // Device 0's stream read it last: it gives it back, in its order. The
    // pool makes device 1's next allocation wait for this free if it
    // reuses the memory.
    CHECK(cudaFreeAsync(chunk, t.s[0]));
}''')
s = sub(s, '''    // TODO: your code
    (void)t;
    (void)w1;
}''', '''    CHECK(cudaSetDevice(1));
    CHECK(cudaFreeAsync(w1, t.s[1]));   // after the last produce, in device 1's order
    CHECK(cudaEventDestroy(t.copied));
    CHECK(cudaEventDestroy(t.produced));
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventDestroy(t.ready));
}''')
correct = s
write(EX, "correct.cu", header("//", "correct", "none: device 1 pulls the weights (cudaMemcpyPeerAsync on its own stream, after a wait for device 0's ready event) into its own pool, and device 0's stream waits for the copy's event before the caller frees w0; each chunk from device 0's pool by cudaMallocFromPoolAsync on device 1's stream, freed on device 0's stream right after its reduce; three events, each made on the device of the stream it is recorded on, recorded again every round.", "none.", "none (written from the lesson and the student file).") + correct)

W = [
("chunk-freed-on-the-producing-stream",
 "wrong (free not ordered after the reader)",
 "one_round frees the chunk on device 1's stream, right after recording produced, reasoning that the stream that allocated it should give it back and that device 0 waits for produced anyway.",
 "device 0's reduce is ordered after produced, but the free on device 1's stream is ordered after nothing of device 0: the next round's allocation on device 1's stream can get the same memory back with no wait and its produce can write it while device 0 still sums it. The produce spins 3 ms before writing, so the reduce is done first and the sums print right.",
 "pytorch/pytorch#23729 (a block given back in the allocating stream's order while another stream still reads it), sgl-project/sglang#14214 (memory handed between streams freed on the producer's side)",
 [('''    // Device 0's stream read it last: it gives it back, in its order. The
    // pool makes device 1's next allocation wait for this free if it
    // reuses the memory.
    CHECK(cudaFreeAsync(chunk, t.s[0]));
''', ''), ('''    CHECK(cudaEventRecord(t.produced, t.s[1]));
    CHECK(cudaSetDevice(0));
''', '''    CHECK(cudaEventRecord(t.produced, t.s[1]));
    CHECK(cudaFreeAsync(chunk, t.s[1]));   // given back where it was taken; device 0 waits for produced
    CHECK(cudaSetDevice(0));
''')]),
("one-chunk-for-every-round",
 "wrong (reuse across rounds with no order back from the reader)",
 "the chunk is allocated once, in round 0 (from device 0's pool on device 1's stream), kept in Two and written again every round; finish frees it on device 0's stream after the last reduce.",
 "round r+1's produce on device 1's stream overwrites the chunk while round r's reduce on device 0's stream may still read it: device 0 waits for device 1 (produced), but device 1 never waits for device 0. Each produce spins 3 ms before it writes, so the reduce is done first and every round sums right; the exercise asks for each chunk to go back to the pool once nothing uses it.",
 "pytorch/pytorch#181191 (a buffer reused by the producer stream without waiting for the consumer's event), meta-pytorch/torchrec#4231 (a block reused across iterations without an order after its reader: corrupt data only under load)",
 [('''    cudaEvent_t produced = nullptr;   // device 1: this round's chunk is written
''', '''    cudaEvent_t produced = nullptr;   // device 1: this round's chunk is written
    int* chunk = nullptr;             // one chunk, written again every round
'''), ('''    int* chunk = nullptr;
    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[1]));
''', '''    CHECK(cudaSetDevice(1));
    if (t.chunk == nullptr) CHECK(cudaMallocFromPoolAsync((void**)&t.chunk, n * sizeof(int), t.pool[0], t.s[1]));
    int* chunk = t.chunk;
'''), ('''    // Device 0's stream read it last: it gives it back, in its order. The
    // pool makes device 1's next allocation wait for this free if it
    // reuses the memory.
    CHECK(cudaFreeAsync(chunk, t.s[0]));
}''', '''}'''), ('''    CHECK(cudaSetDevice(0));
    CHECK(cudaEventDestroy(t.ready));
}''', '''    CHECK(cudaSetDevice(0));
    CHECK(cudaEventDestroy(t.ready));
    if (t.chunk != nullptr) CHECK(cudaFreeAsync(t.chunk, t.s[0]));   // after the last reduce
    t.chunk = nullptr;
}''')]),
("produced-event-made-every-round",
 "wrong (leak that grows with the rounds)",
 "one_round makes a new produced event every round (on device 1) and never destroys it; the one made in setup is destroyed in finish.",
 "each round leaks an event: with the default 5 rounds it is five small objects the process exit takes back, with many rounds it grows without end, and what setup made is not what finish destroys.",
 "tromp/cuckoo#69 (cudaEventCreate in a loop without cudaEventDestroy: a leak), llnl/camp#71 (CUDA and HIP event wrappers that create events and never free them)",
 [('''    produce<<<kBlocks, kThreads, 0, t.s[1]>>>(chunk, w1, n, r, kProduceNs);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t.produced, t.s[1]));
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamWaitEvent(t.s[0], t.produced, 0));
''', '''    produce<<<kBlocks, kThreads, 0, t.s[1]>>>(chunk, w1, n, r, kProduceNs);
    CHECK(cudaGetLastError());
    cudaEvent_t produced = nullptr;   // this round's own mark
    CHECK(cudaEventCreateWithFlags(&produced, cudaEventDisableTiming));
    CHECK(cudaEventRecord(produced, t.s[1]));
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamWaitEvent(t.s[0], produced, 0));
''')]),
]
for slug, kind, mis, why, src, edits in W:
    write(EX, "wrong-%s.cu" % slug, header("//", kind, mis, why, src) + apply(correct, edits))
