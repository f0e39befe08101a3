import os, sys; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mk import *
_s=open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'sp_correct.py')).read().replace("open(sys.argv[1],'w').write(src)","").replace('def rep(a,b)','def rep0(a,b)')
exec(_s)
ex='stream-pools'
write(ex,'correct.cu',[
 'kind: correct',
 'mistake: none. The design: the highest asking lane (from __activemask) moves the offset with a CAS loop for the whole run;',
 'every lane reads every asking lane\'s size with __shfl_sync to find its start; the counters live in the same cudaMalloc as the',
 'slices (after them) and are cleared per pool on its own stream; destroy uses a plain cudaFree after main\'s device sync.',
 'why it is wrong: -',
 'source: -'], src)
# W1: the fork event recorded before the arena's cudaMallocAsync
w1=rep(src,'''        CHECK(cudaMalloc(&arena_, (size_t)n * slice + (size_t)n * sizeof(PoolCounters)));
        counters_ = reinterpret_cast<PoolCounters*>(arena_ + (size_t)n * slice);
        for (int i = 0; i < n; i++)
            CHECK(cudaMemsetAsync(counters_ + i, 0, sizeof(PoolCounters), streams[i]));''','''        // The arena comes from stream 0's pool; the other streams are told
        // about it through an event, so that the host never waits.
        cudaEvent_t ready;
        CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
        CHECK(cudaEventRecord(ready, streams[0]));
        CHECK(cudaMallocAsync(&arena_, (size_t)n * slice + (size_t)n * sizeof(PoolCounters), streams[0]));
        counters_ = reinterpret_cast<PoolCounters*>(arena_ + (size_t)n * slice);
        for (int i = 0; i < n; i++) {
            if (i > 0) CHECK(cudaStreamWaitEvent(streams[i], ready, 0));
            CHECK(cudaMemsetAsync(counters_ + i, 0, sizeof(PoolCounters), streams[i]));
        }
        CHECK(cudaEventDestroy(ready));''')
w1=rep(w1,'''    // main has synchronized the device: a plain cudaFree is enough.''','''    // main has synchronized the device: a plain cudaFree gives the pool's
    // memory back.''')
write(ex,'wrong-ready-recorded-before-the-arena.cu',[
 'kind: wrong',
 'mistake: init takes the arena with cudaMallocAsync on stream 0 and hands it to streams 1 to 3 through an event, but the event',
 'is recorded BEFORE the cudaMallocAsync, so the waits order the other streams after nothing of the allocation.',
 'why it is wrong: the memsets (and every kernel) of streams 1-3 use memory whose allocation is not ordered before them: a use',
 'before its allocation in stream order. It prints right, since the pool happens to have the memory at once.',
 'source: rapidsai/rmm#2156 (compute-sanitizer: an allocation used on a stream not ordered after it), NVIDIA-BioNeMo/nvMolKit#55'], w1)
# W2: warp-synchronous shared broadcast without __syncwarp
w2=rep(src,'''    base = __shfl_sync(mask, base, last);''','''    // Hand the run's start to the other lanes through shared memory, one
    // slot per warp: the warp runs the store and the loads together.
    volatile __shared__ unsigned long long start[kThreads / kWarp];
    if (lane == last) start[threadIdx.x / kWarp] = base;
    base = start[threadIdx.x / kWarp];''')
write(ex,'wrong-start-shared-without-syncwarp.cu',[
 'kind: wrong',
 'mistake: the leader hands the run\'s start to the other lanes through a volatile shared slot per warp, with no __syncwarp between',
 'the leader\'s store and the other lanes\' loads (pre-Volta warp-synchronous style).',
 'why it is wrong: since Volta the lanes of a warp are scheduled independently: a lane may load the slot before the leader stored',
 'it (a stale start from an earlier call, so two runs overlap) - a race inside the warp that most runs do not show.',
 'source: proteneer/timemachine#344, CanReader/FastNN#8, kokkos/kokkos#1676 (missing __syncwarp, wrong on Volta and newer)'], w2)
# W3: a refusal counted as a full warp
w3=rep(src,"""        if (base == ~0ull) atomicAdd(&p.counters->failed, (unsigned long long)__popc(mask));""","""        if (base == ~0ull) atomicAdd(&p.counters->failed, (unsigned long long)kWarp);  // the warp is refused""")
write(ex,'wrong-refusal-counted-as-a-whole-warp.cu',[
 'kind: wrong',
 'mistake: when a run does not fit, the leader adds kWarp (32) to the refused count instead of the number of lanes that asked.',
 'why it is wrong: a warp whose asking lanes have gaps is refused as 32 requests. Latent in the harness: refusals only happen in the',
 'overflow round, where all 32 lanes of every asking warp ask; a refused run of a warp with gaps (another workload, or sizes that',
 'do not fill the slice exactly) is over-counted.',
 'source: pytorch/pytorch#98159 (a ballot counted over lanes that were not in the loop), bytedance/lightseq#166 and',
 'NVlabs/cuda-oxide#672 (warp code that assumes every lane of the warp is live)'], w3)
