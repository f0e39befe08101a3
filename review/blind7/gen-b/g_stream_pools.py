from mk import *
EX = "stream-pools"
s = read("exercises/day087/stream_pools.cu")
s = sub(s, '''__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    (void)p;
    (void)bytes;
    return nullptr;
}''', '''__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    const unsigned mask = __activemask();   // the lanes asking together
    const int lane = threadIdx.x % kWarp;
    const unsigned below = (1u << lane) - 1;
    // A block takes 1 to 32 units of kAlign bytes: six bits. Bit k of every
    // asking lane's size is one ballot; the units of the lanes below this
    // one, and of all, are counted bit by bit.
    const unsigned units = (unsigned)((bytes + kAlign - 1) / kAlign);
    unsigned bits[6];
    unsigned long long before = 0, total = 0;
    for (int k = 0; k < 6; k++) {
        bits[k] = __ballot_sync(mask, (units >> k) & 1u);
        before += (unsigned long long)__popc(bits[k] & below) << k;
        total += (unsigned long long)__popc(bits[k]) << k;
    }
    before *= kAlign;
    total *= kAlign;
    // The lowest asking lane moves the offset once for the warp, never past
    // the capacity, and keeps the counters.
    const int leader = __ffs(mask) - 1;
    unsigned long long start = 0;
    int got = 0;
    if (lane == leader) {
        unsigned long long old = *(volatile unsigned long long*)&p.counters->offset;
        while (old + total <= p.capacity) {
            const unsigned long long seen = atomicCAS(&p.counters->offset, old, old + total);
            if (seen == old) {
                got = 1;
                start = old;
                atomicMax(&p.counters->high, old + total);
                break;
            }
            old = seen;
        }
        if (!got) atomicAdd(&p.counters->failed, (unsigned long long)__popc(mask));
    }
    got = __shfl_sync(mask, got, leader);
    start = __shfl_sync(mask, start, leader);
    return got ? p.base + start + before : nullptr;
}''')
s = sub(s, '''    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        (void)n;
        (void)slice;
        (void)streams;
    }''', '''    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        slice_ = slice;
        CHECK(cudaMalloc(&arena_, n * slice));   // the slices: no counter lives here
        counters_.assign(n, nullptr);
        for (int i = 0; i < n; i++) {
            // Each pool's counters are its own stream's allocation, cleared
            // in its order: nothing else touches them before its kernels.
            CHECK(cudaMallocAsync(&counters_[i], sizeof(PoolCounters), streams[i]));
            CHECK(cudaMemsetAsync(counters_[i], 0, sizeof(PoolCounters), streams[i]));
        }
    }''')
s = sub(s, '''    DevicePool pool(int i) const {
        (void)i;
        return DevicePool{nullptr, 0, nullptr};
    }''', '''    DevicePool pool(int i) const {
        return DevicePool{arena_ + i * slice_, slice_, counters_[i]};
    }''')
s = sub(s, '''    void reset(int i, cudaStream_t s) {
        (void)i;
        (void)s;
    }
    void used(int i, cudaStream_t s, PoolCounters* to) {
        (void)i;
        (void)s;
        (void)to;
    }''', '''    void reset(int i, cudaStream_t s) {
        CHECK(cudaMemsetAsync(&counters_[i]->offset, 0, sizeof(unsigned long long), s));
    }
    void used(int i, cudaStream_t s, PoolCounters* to) {
        CHECK(cudaMemcpyAsync(to, counters_[i], sizeof(PoolCounters), cudaMemcpyDeviceToHost, s));
    }''')
s = sub(s, '''    void destroy() {
    }

private:
    // What init keeps for pool(), reset(), used() and destroy().
''', '''    void destroy() {
        // The device is synchronized and the streams are gone: a plain
        // cudaFree of each, stream-ordered or not, has nothing to wait for.
        for (PoolCounters* c : counters_) CHECK(cudaFree(c));
        counters_.clear();
        CHECK(cudaFree(arena_));
        arena_ = nullptr;
    }

private:
    // What init keeps for pool(), reset(), used() and destroy().
    char* arena_ = nullptr;
    unsigned long long slice_ = 0;
    std::vector<PoolCounters*> counters_;
''')
correct = s
write(EX, "correct.cu", header("//", "correct", "none: the asking lanes from __activemask; each lane's place found from six ballots, one per bit of its size in 16-byte units (popc of each ballot below the lane, shifted by the bit), the warp's total the same way; the lowest asking lane moves the offset with a CAS loop that never passes the capacity and keeps the counters (atomicMax, atomicAdd of the refused lanes); the slices one cudaMalloc, each pool's counters its own cudaMallocAsync on its own stream, cleared there; destroy frees everything with cudaFree.", "none.", "none (written from the lesson and the student file).") + correct)

W = [
("partial-warp-fitted-lane-by-lane",
 "wrong (shows only in the gapped round, GAPS 1)",
 "when a warp's run does not fit whole, the lanes whose blocks still fit before the capacity get them (the offset moves to the end of the last one that fits, by the same CAS), and only the lanes past it are refused and counted.",
 "the pool must give a warp's run whole or not at all. In the eight rounds and the overflow round no warp's run ever straddles the capacity (the overflow's runs are 16 KiB and the slice 512 KiB), so a default run prints what it should; only the gapped round (24 lanes of 512 bytes) has a run that straddles, and there part of the warp is served, every refusal still counted by the pools, so the gapped line's own check passes too.",
 "alpaka-group/mallocMC#145 (a warp-aggregated device allocator whose active-lane handling was right for full warps and wrong for branched, partial ones), NVIDIA/cccl#854 (warp collectives that misbehave only in sub-warp and partial-warp cases, found by synccheck)",
 [('''    const int leader = __ffs(mask) - 1;
    unsigned long long start = 0;
    int got = 0;
    if (lane == leader) {
        unsigned long long old = *(volatile unsigned long long*)&p.counters->offset;
        while (old + total <= p.capacity) {
            const unsigned long long seen = atomicCAS(&p.counters->offset, old, old + total);
            if (seen == old) {
                got = 1;
                start = old;
                atomicMax(&p.counters->high, old + total);
                break;
            }
            old = seen;
        }
        if (!got) atomicAdd(&p.counters->failed, (unsigned long long)__popc(mask));
    }
    got = __shfl_sync(mask, got, leader);
    start = __shfl_sync(mask, start, leader);
    return got ? p.base + start + before : nullptr;
''', '''    // A warp that does not fit whole still gives the lanes that fit their
    // blocks: they are a run from the start, in lane order.
    (void)total;
    const int leader = __ffs(mask) - 1;
    unsigned long long old = 0;
    if (lane == leader) old = *(volatile unsigned long long*)&p.counters->offset;
    for (;;) {
        old = __shfl_sync(mask, old, leader);
        const unsigned fit = __ballot_sync(mask, old + before + units * kAlign <= p.capacity);
        if (fit == 0) {
            if (lane == leader) atomicAdd(&p.counters->failed, (unsigned long long)__popc(mask));
            return nullptr;
        }
        unsigned long long taken = 0;
        for (int k = 0; k < 6; k++) taken += (unsigned long long)__popc(bits[k] & fit) << k;
        taken *= kAlign;
        int done = 0;
        if (lane == leader) {
            const unsigned long long seen = atomicCAS(&p.counters->offset, old, old + taken);
            done = seen == old;
            if (done) {
                atomicMax(&p.counters->high, old + taken);
                atomicAdd(&p.counters->failed, (unsigned long long)__popc(mask & ~fit));
            } else {
                old = seen;
            }
        }
        done = __shfl_sync(mask, done, leader);
        if (done) return (fit >> lane) & 1u ? p.base + old + before : nullptr;
    }
''')]),
("counters-cleared-on-the-first-pools-stream",
 "wrong (an unordered use: right by timing)",
 "init makes every pool's counters one cudaMalloc and clears them with one cudaMemsetAsync on the first pool's stream, streams[0], taking it as the setup stream; nothing orders the other pools' streams after it.",
 "pools 1 to 3's first reset and kernels run on their own streams, ordered after nothing of streams[0]: their counters may still hold what the memory held before (main leaves 0xff bytes there on purpose) when their kernels raise the mark and count, and the memset may then land in the middle of their first round. The memset is queued first and is tiny, so it nearly always lands first and the output is right.",
 "NVIDIA/cuda-python#2289 (review: without the wait, the work on stream_b can race ahead of the kernel on stream_a), alpaka-group/alpaka#850 (memory set on one stream and used on others: right by timing)",
 [('''        counters_.assign(n, nullptr);
        for (int i = 0; i < n; i++) {
            // Each pool's counters are its own stream's allocation, cleared
            // in its order: nothing else touches them before its kernels.
            CHECK(cudaMallocAsync(&counters_[i], sizeof(PoolCounters), streams[i]));
            CHECK(cudaMemsetAsync(counters_[i], 0, sizeof(PoolCounters), streams[i]));
        }
''', '''        PoolCounters* all = nullptr;
        CHECK(cudaMalloc(&all, n * sizeof(PoolCounters)));
        // Cleared on the setup stream, the first pool's; no host wait.
        CHECK(cudaMemsetAsync(all, 0, n * sizeof(PoolCounters), streams[0]));
        counters_.assign(n, nullptr);
        for (int i = 0; i < n; i++) counters_[i] = all + i;
'''), ('''        for (PoolCounters* c : counters_) CHECK(cudaFree(c));
        counters_.clear();
''', '''        if (!counters_.empty()) CHECK(cudaFree(counters_[0]));
        counters_.clear();
''')]),
("refusals-forgotten-at-each-reset",
 "wrong (shows only with GAPS 1)",
 "reset clears the offset and the refused count (two memsets on s), taking 'what the pool has counted since init' to be the high-water mark alone.",
 "the refused count must run from init to the end. In a default run no request is refused before the overflow round, so clearing it at each reset changes nothing and every line is as expected; with GAPS 1 the gapped round's reset clears the overflow round's 4096 refusals, and the pools' count for the gapped round (the difference between the two reads) comes out wrong.",
 "flagos-ai/Torch-FL#362 and #364 (a reset of peak memory stats that cleared the live and cumulative allocator counters too; the fix keeps the num_* counters cumulative and re-bases only the watermarks)",
 [('''        CHECK(cudaMemsetAsync(&counters_[i]->offset, 0, sizeof(unsigned long long), s));
''', '''        CHECK(cudaMemsetAsync(&counters_[i]->offset, 0, sizeof(unsigned long long), s));
        CHECK(cudaMemsetAsync(&counters_[i]->failed, 0, sizeof(unsigned long long), s));   // a new round's refusals
''')]),
]
for slug, kind, mis, why, src, edits in W:
    write(EX, "wrong-%s.cu" % slug, header("//", kind, mis, why, src) + apply(correct, edits))
