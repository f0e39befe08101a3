STUDENT = "exercises/day087/stream_pools.cu"
DIR = "stream-pools"
EXT = "cu"
COMMENT = "//"
CORRECT_HEADER = {
    "kind": "correct",
    "mistake": "none: pool_alloc rounds to 16, takes the asking lanes with __activemask, each lane's place by shuffling every asking lane's size, the lowest asking lane moves the offset with an atomicCAS loop that rechecks the fit on every try, raises the high-water mark and counts refusals (one per asking lane); StreamPools keeps one cudaMalloc arena and one array of counters, each pool's counters cleared by cudaMemsetAsync on its own stream, reset by a cudaMemsetAsync of the offset alone, read by cudaMemcpyAsync, all on the pool's stream; destroy frees both.",
    "why it is wrong": "it is not: the design the lesson asks for (day087, \"One atomic per warp\", \"Exercise: per-stream pools\").",
    "source": "own (NVIDIA blog \"Using CUDA Warp-Level Primitives\"; CUDA Programming Guide, atomicCAS)",
}
CORRECT = [
("""__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    (void)p;
    (void)bytes;
    return nullptr;
}""", """__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    const unsigned long long n = (bytes + kAlign - 1) / kAlign * kAlign;
    const unsigned mask = __activemask();   // the lanes that ask now
    const int lane = threadIdx.x % kWarp;
    const int leader = __ffs(mask) - 1;
    // This lane's place in the run: the sizes of the asking lanes below it.
    unsigned long long below = 0, total = 0;
    for (int l = 0; l < kWarp; l++) {
        if (!((mask >> l) & 1u)) continue;
        const unsigned long long v = __shfl_sync(mask, n, l);
        if (l < lane) below += v;
        total += v;
    }
    unsigned long long start = 0;
    int ok = 0;
    if (lane == leader) {
        unsigned long long cur = *(volatile unsigned long long*)&p.counters->offset;
        for (;;) {
            if (cur > p.capacity || total > p.capacity - cur) break;   // the run does not fit: the offset stays
            const unsigned long long prev = atomicCAS(&p.counters->offset, cur, cur + total);
            if (prev == cur) {
                ok = 1;
                start = cur;
                break;
            }
            cur = prev;
        }
        if (ok) atomicMax(&p.counters->high, start + total);
        else atomicAdd(&p.counters->failed, (unsigned long long)__popc(mask));
    }
    start = __shfl_sync(mask, start, leader);
    ok = __shfl_sync(mask, ok, leader);
    if (!ok) return nullptr;
    return p.base + start + below;
}"""),
("""    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        (void)n;
        (void)slice;
        (void)streams;
    }""", """    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        n_ = n;
        slice_ = slice;
        CHECK(cudaMalloc(&arena_, (size_t)n * slice));
        CHECK(cudaMalloc(&counters_, n * sizeof(PoolCounters)));
        for (int i = 0; i < n; i++) CHECK(cudaMemsetAsync(counters_ + i, 0, sizeof(PoolCounters), streams[i]));
    }"""),
("""    DevicePool pool(int i) const {
        (void)i;
        return DevicePool{nullptr, 0, nullptr};
    }""", """    DevicePool pool(int i) const {
        return DevicePool{arena_ + (size_t)i * slice_, slice_, counters_ + i};
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
        CHECK(cudaMemsetAsync(&counters_[i].offset, 0, sizeof(unsigned long long), s));
    }
    void used(int i, cudaStream_t s, PoolCounters* to) {
        CHECK(cudaMemcpyAsync(to, counters_ + i, sizeof(PoolCounters), cudaMemcpyDeviceToHost, s));
    }"""),
("""    void destroy() {
    }

private:
    // What init keeps for pool(), reset(), used() and destroy().
};""", """    void destroy() {
        CHECK(cudaFree(arena_));
        CHECK(cudaFree(counters_));
        arena_ = nullptr;
        counters_ = nullptr;
    }

private:
    // What init keeps for pool(), reset(), used() and destroy().
    int n_ = 0;
    unsigned long long slice_ = 0;
    char* arena_ = nullptr;
    PoolCounters* counters_ = nullptr;
};"""),
]

WRONG = [
    ("cas-fit-checked-once", {
        "kind": "race that rarely shows (a CAS loop that does not re-check its condition)",
        "mistake": "the leader checks that the run fits once, before the atomicCAS loop, and on a failed CAS retries with the newer offset without checking the fit again.",
        "why it is wrong": "another warp may have moved the offset between the check and the CAS, so the retry can move the offset past the capacity and hand out blocks beyond the pool's slice (into the next pool's, or past the arena for the last): the lesson's \"the offset moves only when the run fits, with the atomicCAS loop\". Only the overflow round has warps racing near the capacity, and most runs there are refused at the first check.",
        "source": "own (the compare-and-swap loop pattern of the Programming Guide's atomicCAS example, with the condition hoisted out of it)",
    }, [
        ("""        unsigned long long cur = *(volatile unsigned long long*)&p.counters->offset;
        for (;;) {
            if (cur > p.capacity || total > p.capacity - cur) break;   // the run does not fit: the offset stays
            const unsigned long long prev""", """        unsigned long long cur = *(volatile unsigned long long*)&p.counters->offset;
        const bool fits = cur <= p.capacity && total <= p.capacity - cur;   // the run fits: claim it
        for (; fits;) {
            const unsigned long long prev"""),
    ]),
    ("reset-from-pageable", {
        "kind": "a hidden host wait (pageable memory in an async copy)",
        "mistake": "reset writes the offset with cudaMemcpyAsync from a zero on the host's stack (pageable memory) instead of cudaMemsetAsync.",
        "why it is wrong": "a copy from pageable memory is staged by the driver: the runtime's \"API synchronization behavior\" says that for pageable host memory the copy may synchronize with the stream before staging, so reset may wait on the host, which TODO 5 forbids (\"Neither may wait on the host\"). The numbers come out right.",
        "source": "CUDA Runtime API reference, \"API synchronization behavior\" (memcpy from pageable host memory)",
    }, [
        ("        CHECK(cudaMemsetAsync(&counters_[i].offset, 0, sizeof(unsigned long long), s));",
         "        const unsigned long long zero = 0;\n        CHECK(cudaMemcpyAsync(&counters_[i].offset, &zero, sizeof zero, cudaMemcpyHostToDevice, s));"),
    ]),
    ("counters-leaked", {
        "kind": "a leak",
        "mistake": "destroy frees the arena but not the counters' allocation.",
        "why it is wrong": "TODO 6: \"give back what init took\"; init took two allocations. Nothing in the output shows it.",
        "source": "own",
    }, [
        ("""        CHECK(cudaFree(arena_));
        CHECK(cudaFree(counters_));""", """        CHECK(cudaFree(arena_));"""),
    ]),
    ("destroy-on-destroyed-stream", {
        "kind": "a leak behind an ignored error",
        "mistake": "to keep everything in stream order, init keeps the first stream and destroy frees the arena and counters with cudaFreeAsync on it, not checking the result; main destroys the streams before it calls destroy.",
        "why it is wrong": "the stream no longer exists, so both frees fail (an invalid handle) and nothing is given back; the error is dropped, the program prints the same lines and exits 0 (TODO 6: give back what init took).",
        "source": "own",
    }, [
        ("""        CHECK(cudaFree(arena_));
        CHECK(cudaFree(counters_));""", """        cudaFreeAsync(arena_, first_);   // in stream order, like the rest of the pool
        cudaFreeAsync(counters_, first_);"""),
        ("""        slice_ = slice;
""", """        slice_ = slice;
        first_ = streams[0];
"""),
        ("""    PoolCounters* counters_ = nullptr;
};""", """    PoolCounters* counters_ = nullptr;
    cudaStream_t first_ = nullptr;
};"""),
    ]),
]
