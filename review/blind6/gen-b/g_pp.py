import os, sys; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mk import *
src=open('exercises/day075/peer_pool.cu').read()
src=rep(src,'''    // Yours: whatever else you keep between the calls below.
    // TODO: write this part
''','''    // Yours: made (device 0: the weights are made), produced (device 1: a
    // chunk is written), reduced (device 0: a chunk is added up). Each is
    // recorded again every round; its wait is queued right after its record.
    cudaEvent_t made, produced, reduced;
''')
src=rep(src,'''void setup(Two& t) {
    // TODO: your code
    (void)t;
}''','''void setup(Two& t) {
    for (int d = 0; d < 2; d++) {
        CHECK(cudaSetDevice(d));
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = d;
        CHECK(cudaMemPoolCreate(&t.pool[d], &props));
        CHECK(cudaDeviceSetMemPool(d, t.pool[d]));
    }
    // Device 1 writes the chunks (device 0's pool) and reads device 0's
    // weights once, for its copy: the pool's own access, once.
    cudaMemAccessDesc desc = {};
    desc.location.type = cudaMemLocationTypeDevice;
    desc.location.id = 1;
    desc.flags = cudaMemAccessFlagsProtReadWrite;
    CHECK(cudaMemPoolSetAccess(t.pool[0], &desc, 1));
    CHECK(cudaSetDevice(1));
    CHECK(cudaEventCreateWithFlags(&t.produced, cudaEventDisableTiming));
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventCreateWithFlags(&t.made, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&t.reduced, cudaEventDisableTiming));
}''')
src=rep(src,'''    int* w1 = nullptr;
    // TODO: your code
    (void)t;
    (void)w0;
    (void)bytes;
    return w1;''','''    int* w1 = nullptr;
    CHECK(cudaEventRecord(t.made, t.s[0]));   // after init_weights, queued by the caller
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(t.s[1], t.made, 0));
    CHECK(cudaMallocAsync((void**)&w1, bytes, t.s[1]));   // device 1's current pool
    CHECK(cudaMemcpyAsync(w1, w0, bytes, cudaMemcpyDefault, t.s[1]));
    // No event back: every round device 0's stream waits for an event
    // recorded on device 1's stream after this copy, so the caller's free
    // of w0 on device 0's stream comes after it.
    CHECK(cudaSetDevice(0));
    return w1;''')
src=rep(src,'''void one_round(Two& t, int r, const int* w1, size_t n, unsigned long long* sum) {
    // TODO: your code
    (void)t;
    (void)r;
    (void)w1;
    (void)n;
    (void)sum;
}''','''void one_round(Two& t, int r, const int* w1, size_t n, unsigned long long* sum) {
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
    CHECK(cudaEventRecord(t.reduced, t.s[0]));
    // The chunk goes back on the stream that allocated it, after the reduce.
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(t.s[1], t.reduced, 0));
    CHECK(cudaFreeAsync(chunk, t.s[1]));
    CHECK(cudaSetDevice(0));
}''')
src=rep(src,'''void finish(Two& t, int* w1) {
    // TODO: your code
    (void)t;
    (void)w1;
}''','''void finish(Two& t, int* w1) {
    CHECK(cudaSetDevice(1));
    CHECK(cudaFreeAsync(w1, t.s[1]));   // after the last produce, in s[1]'s order
    CHECK(cudaEventDestroy(t.produced));
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventDestroy(t.made));
    CHECK(cudaEventDestroy(t.reduced));
}''')
ex='peer-pool'
write(ex,'correct.cu',['kind: correct',
 'mistake: none. The design: the chunk is allocated from device 0\'s pool on device 1\'s stream and freed on that same stream after',
 'it waits for device 0\'s reduce; device 1 copies the weights itself (cudaMemcpyAsync, cudaMemcpyDefault, device 1 current) after',
 'waiting for an event of device 0; no event back for the weights: the rounds\' produced events order device 0\'s stream (and the',
 'caller\'s free of w0) after the copy. Three events, reused every round.',
 'why it is wrong: -','source: -'],src)
p1=rep(src,'''    CHECK(cudaEventRecord(t.reduced, t.s[0]));
    // The chunk goes back on the stream that allocated it, after the reduce.
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(t.s[1], t.reduced, 0));
    CHECK(cudaFreeAsync(chunk, t.s[1]));
    CHECK(cudaSetDevice(0));
}''','''    CHECK(cudaEventRecord(t.reduced, t.s[0]));
    CHECK(cudaSetDevice(0));
}''')
p1=rep(p1,'''    int* chunk = nullptr;
    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[1]));''','''    int* chunk = nullptr;
    CHECK(cudaSetDevice(1));
    // Device 1's side of the round first: the chunk goes back on the
    // stream that allocated it, once device 0 has added it up.
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[1]));''')
p1=rep(p1,'''    CHECK(cudaEventRecord(t.produced, t.s[1]));
    CHECK(cudaSetDevice(0));''','''    CHECK(cudaEventRecord(t.produced, t.s[1]));
    CHECK(cudaStreamWaitEvent(t.s[1], t.reduced, 0));
    CHECK(cudaFreeAsync(chunk, t.s[1]));
    CHECK(cudaSetDevice(0));''')
write(ex,'wrong-chunk-free-queued-before-the-reduce.cu',['kind: wrong',
 'mistake: one_round queues all of device 1\'s side first: allocate, produce, record produced, wait for reduced, free; only then',
 'device 0\'s wait, reduce and record of reduced. The wait for reduced is queued before this round\'s record.',
 'why it is wrong: a wait waits for the record made before it was called, here the previous round\'s reduce, so the chunk is',
 'freed with nothing ordering it after its own reduce (in the first round, after nothing at all). The sums come out right: the',
 'next round\'s produce waits 3 ms before it writes, and the reduce is long over by then.',
 'source: sgl-project/sglang#14214 (an event waited for before it is recorded: the wait does not cover the later record)'],p1)
p2=rep(src,'''    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(t.s[1], t.made, 0));
    CHECK(cudaMallocAsync((void**)&w1, bytes, t.s[1]));   // device 1's current pool
    CHECK(cudaMemcpyAsync(w1, w0, bytes, cudaMemcpyDefault, t.s[1]));''','''    CHECK(cudaStreamWaitEvent(t.s[1], t.made, 0));
    CHECK(cudaMallocFromPoolAsync((void**)&w1, bytes, t.pool[1], t.s[1]));   // device 1's pool
    CHECK(cudaMemcpyAsync(w1, w0, bytes, cudaMemcpyDeviceToDevice, t.s[1]));   // device 0 is current''')
write(ex,'wrong-weights-copied-from-device-0-current.cu',['kind: wrong',
 'mistake: share_weights stays on device 0 (it is called with device 0 current) and copies the weights into device 1\'s pool',
 'with cudaMemcpyAsync(..., cudaMemcpyDeviceToDevice) on device 1\'s stream.',
 'why it is wrong: cudaMemcpyAsync is sensitive to the current device: a copy between pool memory of two devices, on a stream of',
 'device 1 with device 0 current, is outside what the Guide promises (its addendum asks for the stream\'s device to be current,',
 'or for cudaMemcpyPeerAsync). On many systems (unified addressing, peer access) the copy happens to work.',
 'source: ggml-org/llama.cpp#4620 and #4606 (copies between pools of different devices needed cudaMemcpyPeerAsync on some',
 'systems), torch/cutorch#192'],p2)
p3=rep(src,'''    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamWaitEvent(t.s[0], t.produced, 0));
    reduce<<<kBlocks, kThreads, 0, t.s[0]>>>(chunk, n, sum);''','''    CHECK(cudaSetDevice(0));
    CHECK(cudaEventSynchronize(t.produced));   // device 1 has written the chunk
    reduce<<<kBlocks, kThreads, 0, t.s[0]>>>(chunk, n, sum);''')
write(ex,'wrong-produced-synchronized-on-the-host.cu',['kind: wrong',
 'mistake: device 0\'s reduce is ordered after device 1\'s produce by a host wait (cudaEventSynchronize on produced) instead of',
 'cudaStreamWaitEvent on device 0\'s stream.',
 'why it is wrong: the exercise forbids host waits during the rounds: the host stands still 3 ms a round, and device 1 can',
 'no longer run ahead of device 0. The order itself holds (through the host), so the sums are right.',
 'source: torch/cutorch#192 (cross-device copies and reads need events between the devices\' streams), lsds/KungFu#65'],p3)
