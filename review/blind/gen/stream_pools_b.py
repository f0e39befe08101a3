ID = "stream-pools"
DIR = "stream-pools-b"
SRC = "exercises/day087/stream_pools.cu"
NOTE = "A second blind set for stream-pools, written later by another helper from the lesson and the student file alone, without sight of the first set (`../stream-pools/`) beyond its file names. Correct design: `pool_alloc` with cooperative groups (`coalesced_threads`, `exclusive_scan` for each lane's place, `reduce` for the warp's total, rank 0 runs the `atomicCAS` loop and the counters, `shfl` broadcasts), the lesson's other wording of the same algorithm; the counters of every pool and the arena in one `cudaMallocAsync` allocation on the first stream, every pool's counters cleared there by one `cudaMemsetAsync`, and one event after it that every other stream waits for, so that each pool's counters start at 0 in its stream's order without a host wait."


def H(kind, mistake, why, source):
    return {"kind": kind, "mistake": mistake, "why it is wrong": why, "source": source}


INIT = """    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        n_ = n;
        slice_ = slice;
        // One allocation: every pool's counters in its first 256 bytes, then
        // the slices. Made and cleared in the first stream's order; the
        // other streams wait for that on the GPU.
        head_ = (n * sizeof(PoolCounters) + 255) / 256 * 256;
        CHECK(cudaMallocAsync((void**)&block_, head_ + n * slice, streams[0]));
        CHECK(cudaMemsetAsync(block_, 0, head_, streams[0]));
        CHECK(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming));
        CHECK(cudaEventRecord(ready_, streams[0]));
        for (int i = 1; i < n; i++) CHECK(cudaStreamWaitEvent(streams[i], ready_, 0));
    }"""

E = [
("""__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    (void)p;
    (void)bytes;
    return nullptr;
}""", """__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    // The lanes that ask now, as one group: its rank 0 is the lowest of them.
    cg::coalesced_group asking = cg::coalesced_threads();
    const unsigned long long size = (bytes + kAlign - 1) / kAlign * kAlign;
    const unsigned long long below = cg::exclusive_scan(asking, size);   // the asking lanes below this one
    const unsigned long long total = cg::reduce(asking, size, cg::plus<unsigned long long>());
    unsigned long long at = 0;
    int fits = 0;
    if (asking.thread_rank() == 0) {
        unsigned long long seen = *(volatile unsigned long long*)&p.counters->offset;
        while (seen + total <= p.capacity) {   // moves the offset only when the run fits
            unsigned long long was = atomicCAS(&p.counters->offset, seen, seen + total);
            if (was == seen) {
                fits = 1;
                at = seen;
                break;
            }
            seen = was;   // another warp moved it: try again from there
        }
        if (fits) atomicMax(&p.counters->high, at + total);
        else atomicAdd(&p.counters->failed, (unsigned long long)asking.size());
    }
    at = asking.shfl(at, 0);
    fits = asking.shfl(fits, 0);
    return fits ? p.base + at + below : nullptr;
}"""),
("""#include <cuda_runtime.h>
""", """#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;
"""),
("""    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        (void)n;
        (void)slice;
        (void)streams;
    }""", INIT),
("""    DevicePool pool(int i) const {
        (void)i;
        return DevicePool{nullptr, 0, nullptr};
    }""", """    DevicePool pool(int i) const {
        return DevicePool{block_ + head_ + i * slice_, slice_, counters() + i};
    }"""),
("""    void reset(int i, cudaStream_t s) {
        (void)i;
        (void)s;
    }
    void used(int i, cudaStream_t s, PoolCounters* to) {
        (void)i;
        (void)s;
        (void)to;
    }""", """    void reset(int i, cudaStream_t s) {
        CHECK(cudaMemsetAsync(&counters()[i].offset, 0, sizeof(unsigned long long), s));   // the offset alone
    }
    void used(int i, cudaStream_t s, PoolCounters* to) {
        CHECK(cudaMemcpyAsync(to, counters() + i, sizeof(PoolCounters), cudaMemcpyDeviceToHost, s));
    }"""),
("""    void destroy() {
    }""", """    void destroy() {
        // main destroys the streams first, after its last wait: nothing is
        // queued any more, and there is no stream left to free in.
        if (block_ != nullptr) CHECK(cudaFree(block_));
        if (ready_ != nullptr) CHECK(cudaEventDestroy(ready_));
        block_ = nullptr;
        ready_ = nullptr;
    }"""),
("""    // What init keeps for pool(), reset(), used() and destroy().
};""", """    // What init keeps for pool(), reset(), used() and destroy().
    PoolCounters* counters() const { return reinterpret_cast<PoolCounters*>(block_); }
    char* block_ = nullptr;      // the counters, then the arena
    size_t head_ = 0;            // the counters' bytes, a whole 256
    unsigned long long slice_ = 0;
    int n_ = 0;
    cudaEvent_t ready_ = nullptr;
};"""),
]

CORRECT = (H("correct",
             "None intended: pool_alloc with cooperative groups (coalesced group, exclusive scan and reduce of the rounded sizes, rank 0 runs the atomicCAS loop that moves the offset only when the run fits, raises the high-water mark or counts the refused lanes, and broadcasts the start); counters and arena in one cudaMallocAsync on stream 0, cleared there, other streams ordered after it by one event; reset and used queued on the pool's stream; cudaFree at the end.",
             "Correct: every block is a multiple of 16 from a 16-byte-aligned start (the arena starts 256 bytes in, each slice a multiple of 16), the asking lanes' blocks are one run in lane order that fits whole or not at all, the offset never passes the capacity, one lane per warp makes the atomics; each pool's counters are zero before its stream's first use (stream 0 by order, the others by the event), reset clears the offset alone, used reads after the round's kernel in the same stream; no host wait, nothing on the legacy stream.",
             "own; cooperative groups' coalesced_threads, exclusive_scan and reduce: the CUDA Programming Guide's Cooperative Groups chapter (the lesson names them)"),
           E)

WRONGS = [
("arena-alloc-unordered",
 H("memory used on streams not ordered after its allocation (output identical)",
   "init allocates the arena with cudaMallocAsync on the first stream and clears each pool's counters with cudaMemsetAsync on that pool's own stream, as the lesson says, with no event: 'the allocation has returned its pointer, so the memory is there'.",
   "Memory from cudaMallocAsync is ready in the order of the stream that allocated it only. The other three streams' clears, resets and kernels are not ordered after the allocation on the first stream, so they may use the memory before the pool has it ready for them. The allocation is ready long before their first kernel (each spins 50 us first), so every figure is right; only a check that orders each use after its allocation sees it.",
   "https://forums.developer.nvidia.com/t/how-does-cudamemcpypeer-async-work-with-streams/267521 (a cudaMallocAsync block used on another stream: 'error, ptr may not be ready')"),
 [(INIT, """    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        n_ = n;
        slice_ = slice;
        // One allocation: every pool's counters in its first 256 bytes, then
        // the slices. Each pool's counters cleared in its own stream's order.
        head_ = (n * sizeof(PoolCounters) + 255) / 256 * 256;
        CHECK(cudaMallocAsync((void**)&block_, head_ + n * slice, streams[0]));
        for (int i = 0; i < n; i++) CHECK(cudaMemsetAsync(counters() + i, 0, sizeof(PoolCounters), streams[i]));
    }""")]),
("init-syncs-stream",
 H("a host wait in init (output identical)",
   "init waits for the first stream on the host after the allocation and the clear, so that 'the arena is ready for every stream', instead of an event the other streams wait for on the GPU: the way Day 87's own StreamOrderedPool constructor makes its chunk ready.",
   "The exercise asks for no wait of the host in init, reset or used: each pool's counters must start at 0 in its stream's order, which an event gives without stopping the host. The wait is correct in what it orders and every figure is right; only a count of host waits shows it.",
   "exercises/day087/stream_ordered_pool.h (the course's own constructor: cudaStreamSynchronize(setup), 'the chunk is ready for every stream'); https://github.com/rapidsai/rmm/issues/2156 (what an allocation valid on every stream costs)"),
 [("""        CHECK(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming));
        CHECK(cudaEventRecord(ready_, streams[0]));
        for (int i = 1; i < n; i++) CHECK(cudaStreamWaitEvent(streams[i], ready_, 0));""", """        CHECK(cudaStreamSynchronize(streams[0]));   // the arena is ready for every stream""")]),
("destroy-on-legacy-stream",
 H("the arena freed on the legacy default stream (output identical)",
   "destroy frees the arena with cudaFreeAsync on stream 0: main has destroyed the pools' streams before it calls destroy, the allocation was stream-ordered, so the student frees it in stream order on the one stream left.",
   "Stream 0 is the legacy default stream, on which the exercise says nothing may run. Here the device is idle (main waited before), so the free is harmless and the output is the same; only a record of which streams allocated and freed shows it. cudaFree, which waits for nothing queued, is the call for memory whose streams are gone.",
   "own"),
 [("""        if (block_ != nullptr) CHECK(cudaFree(block_));""", """        if (block_ != nullptr) CHECK(cudaFreeAsync(block_, 0));   // its streams are gone: stream 0""")]),
("allocation-per-pool",
 H("an allocation per pool instead of one arena (output identical)",
   "Each pool's slice is its own cudaMallocAsync on the pool's stream ('each stream a pool of its own', read as an allocation of its own), the counters in one small allocation cleared on the first stream and ordered by the event as before.",
   "The exercise asks for one arena carved into slices, the lesson's 'slices of one arena'. Four allocations work (each slice is ready in its own stream's order, where its kernels run) and every figure is right; only the count of allocations shows it.",
   "own (the lesson: 'give each stream a pool of its own: slices of one arena')"),
 [("""        CHECK(cudaMallocAsync((void**)&block_, head_ + n * slice, streams[0]));""", """        CHECK(cudaMallocAsync((void**)&block_, head_, streams[0]));
        for (int i = 0; i < n; i++) CHECK(cudaMallocAsync((void**)&slices_[i], slice, streams[i]));"""),
  ("""        return DevicePool{block_ + head_ + i * slice_, slice_, counters() + i};""", """        return DevicePool{slices_[i], slice_, counters() + i};"""),
  ("""        if (block_ != nullptr) CHECK(cudaFree(block_));""", """        for (int i = 0; i < n_; i++) CHECK(cudaFree(slices_[i]));
        if (block_ != nullptr) CHECK(cudaFree(block_));"""),
  ("""    cudaEvent_t ready_ = nullptr;
};""", """    cudaEvent_t ready_ = nullptr;
    char* slices_[kStreams] = {};   // each pool's own allocation
};""")]),
("reset-clears-all",
 H("a reset that clears every counter (output shows only figures)",
   "reset clears the pool's whole PoolCounters (offset, high-water mark and refused requests) with one cudaMemsetAsync of sizeof(PoolCounters): 'empty the pool' read as 'zero the pool'.",
   "The high-water mark and the count of refused requests are to be kept from init to the end; cleared at every reset, the mark says only what the last round used and the refusals of earlier rounds are lost. Allocation itself is right (no failure, no overlap, every run in lane order), so only the figures 'high-water marks: N of 32' and the overflow's counts, read by one who knows what they must be, show it.",
   "own (the lesson: 'a reset that clears every counter forgets the earlier rounds')"),
 [("""        CHECK(cudaMemsetAsync(&counters()[i].offset, 0, sizeof(unsigned long long), s));   // the offset alone""",
   """        CHECK(cudaMemsetAsync(counters() + i, 0, sizeof(PoolCounters), s));   // the pool emptied""")]),
]
