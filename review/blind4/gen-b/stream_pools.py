STUDENT = "exercises/day087/stream_pools.cu"
DIR = "stream-pools"
EXT = "cu"
COMMENT = "//"
CORRECT_HEADER = {
    "kind": "correct",
    "mistake": "none: one cudaMallocAsync allocation on a stream of the pools' own holds every pool's counters and then the slices; an event recorded there after it, waited for by each pool's stream, then each pool's counters cleared with cudaMemsetAsync on its own stream; destroy frees it with cudaFreeAsync on that own stream and destroys the stream (no host wait, and the pools' streams, already destroyed by main, are not used). pool_alloc walks the asking lanes (__activemask) bit by bit, broadcasting each lane's rounded size with __shfl_sync over the mask, so every lane has the sizes below it and the run's total; the lowest asking lane moves the offset with an atomicCAS loop only when the run fits, raises the high-water mark or counts __popc(mask) refusals, and broadcasts the start.",
    "why it is wrong": "it is not: the lesson leaves the arena's allocation, the order of the clearing and the way lanes learn their place to the student (\"How to get there is yours\"); a lane-by-lane broadcast is 32 shuffles where a scan is 5, but every lane reads only lanes that ask.",
    "source": "own design; NVIDIA's \"CUDA Pro Tip: Optimized Filtering with Warp-Aggregated Atomics\" for the leader and the broadcast",
}
CORRECT = [
("""__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    (void)p;
    (void)bytes;
    return nullptr;
}""", """__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    const unsigned mask = __activemask();
    const int lane = threadIdx.x % kWarp;
    const unsigned long long size = (bytes + kAlign - 1) / kAlign * kAlign;
    // Every asking lane, lowest first: its size, broadcast to all of them.
    unsigned long long below = 0, total = 0;
    for (unsigned rest = mask; rest != 0; rest &= rest - 1) {
        const int j = __ffs(rest) - 1;
        const unsigned long long v = __shfl_sync(mask, size, j);
        if (j < lane) below += v;
        total += v;
    }
    const int leader = __ffs(mask) - 1;
    unsigned long long start = ~0ull;
    if (lane == leader) {
        PoolCounters* c = p.counters;
        unsigned long long seen = *(volatile unsigned long long*)&c->offset;
        for (;;) {
            if (total > p.capacity || seen > p.capacity - total) {   // the run does not fit
                atomicAdd(&c->failed, (unsigned long long)__popc(mask));
                break;
            }
            const unsigned long long got = atomicCAS(&c->offset, seen, seen + total);
            if (got == seen) {
                start = seen;
                atomicMax(&c->high, seen + total);
                break;
            }
            seen = got;   // another warp moved it: try again from there
        }
    }
    start = __shfl_sync(mask, start, leader);
    return start == ~0ull ? nullptr : p.base + start + below;
}"""),
("""    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        (void)n;
        (void)slice;
        (void)streams;
    }""", """    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        n_ = n;
        slice_ = slice;
        // One allocation on a stream of the pools' own: the counters, then
        // the slices from the next 256-byte boundary.
        head_ = ((size_t)n * sizeof(PoolCounters) + 255) / 256 * 256;
        CHECK(cudaStreamCreateWithFlags(&home_, cudaStreamNonBlocking));
        CHECK(cudaMallocAsync(&mem_, head_ + (size_t)n * slice, home_));
        CHECK(cudaEventCreateWithFlags(&made_, cudaEventDisableTiming));
        CHECK(cudaEventRecord(made_, home_));
        for (int i = 0; i < n; i++) {
            CHECK(cudaStreamWaitEvent(streams[i], made_, 0));
            CHECK(cudaMemsetAsync(counters(i), 0, sizeof(PoolCounters), streams[i]));
        }
    }"""),
("""    DevicePool pool(int i) const {
        (void)i;
        return DevicePool{nullptr, 0, nullptr};
    }""", """    DevicePool pool(int i) const {
        return DevicePool{mem_ + head_ + (size_t)i * slice_, slice_, counters(i)};
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
        CHECK(cudaMemsetAsync(&counters(i)->offset, 0, sizeof(unsigned long long), s));
    }
    void used(int i, cudaStream_t s, PoolCounters* to) {
        CHECK(cudaMemcpyAsync(to, counters(i), sizeof(PoolCounters), cudaMemcpyDeviceToHost, s));
    }"""),
("""    void destroy() {
    }""", """    void destroy() {
        // On the pools' own stream: main has destroyed the others. The
        // stream goes once its free is done.
        CHECK(cudaFreeAsync(mem_, home_));
        CHECK(cudaEventDestroy(made_));
        CHECK(cudaStreamDestroy(home_));
        mem_ = nullptr;
    }"""),
("""    // What init keeps for pool(), reset(), used() and destroy().
};""", """    // What init keeps for pool(), reset(), used() and destroy().
    int n_ = 0;
    unsigned long long slice_ = 0;
    size_t head_ = 0;            // the counters' bytes, rounded up to 256
    char* mem_ = nullptr;        // the counters, then the slices
    cudaStream_t home_ = nullptr;
    cudaEvent_t made_ = nullptr;
    PoolCounters* counters(int i) const { return reinterpret_cast<PoolCounters*>(mem_) + i; }
};"""),
]

WRONG = [
    ("prefix-counts-own-lane", {
        "kind": "off by one (an inclusive prefix where an exclusive one is needed)",
        "mistake": "a lane adds its own size into the bytes below it (j <= lane), so its block starts where it should end.",
        "why it is wrong": "every block moves up by its own size: the warp's last block ends past the run the leader reserved and overlaps the next warp's run, or passes the capacity in a full pool (the lesson: \"a lane's block starts where the blocks of the asking lanes below it end\").",
        "source": "CUB's cub::WarpScan reference, ExclusiveSum against InclusiveSum: the two scans every warp-aggregation code has to tell apart",
    }, [
        ("        if (j < lane) below += v;", "        if (j <= lane) below += v;"),
    ]),
    ("full-mask-shuffles", {
        "kind": "an API used with a wrong argument (a full mask while lanes are absent)",
        "mistake": "the shuffles use 0xffffffff instead of the mask of the asking lanes, \"since every lane of the warp should take part\".",
        "why it is wrong": "the lanes that ask for nothing never call pool_alloc; a *_sync intrinsic whose mask names a lane that does not execute it is undefined (the Programming Guide; the lesson: \"Not 0xffffffff\"): the broadcast may hang, or hand a lane a size or start read from a lane that never set it.",
        "source": "NVIDIA developer forums, \"What does mask mean in warp shuffle functions (__shfl_sync)\" (Robert Crovella: \"you must specify a mask parameter which includes the warp lanes you expect to participate ... you are exploring undefined behavior\"); \"How do threads play with __shfl_down_sync plus if branch\" (a full mask inside a branch deadlocked)",
    }, [
        ("        const unsigned long long v = __shfl_sync(mask, size, j);",
         "        const unsigned long long v = __shfl_sync(0xffffffffu, size, j);"),
        ("    start = __shfl_sync(mask, start, leader);",
         "    start = __shfl_sync(0xffffffffu, start, leader);"),
    ]),
    ("clear-after-the-fork", {
        "kind": "race (a misplaced event: the counters cleared after the event the pools' streams wait for)",
        "mistake": "init clears every pool's counters with one cudaMemsetAsync on the pools' own stream, queued after the event that the pools' streams wait for, instead of on each pool's stream.",
        "why it is wrong": "the streams wait only for what came before the record: a pool's first kernel may run before the clearing lands, and count from the 0xff bytes main left in that memory (or be zeroed in the middle). The exercise: each pool's counters start at 0 \"in the order of streams[i], the pool's stream\".",
        "source": "own (one memset for all, the economy a student reaches for); the kind is that of rapidsai/rmm#2489: an event whose record predates the work it must cover",
    }, [
        ("""        CHECK(cudaEventRecord(made_, home_));
        for (int i = 0; i < n; i++) {
            CHECK(cudaStreamWaitEvent(streams[i], made_, 0));
            CHECK(cudaMemsetAsync(counters(i), 0, sizeof(PoolCounters), streams[i]));
        }""", """        CHECK(cudaEventRecord(made_, home_));
        for (int i = 0; i < n; i++) CHECK(cudaStreamWaitEvent(streams[i], made_, 0));
        CHECK(cudaMemsetAsync(mem_, 0, (size_t)n * sizeof(PoolCounters), home_));"""),
    ]),
    ("high-raised-before-fit", {
        "kind": "wrong order (a counter moved before the test that decides whether it should move)",
        "mistake": "the leader raises the high-water mark to where the run would end before it checks that the run fits.",
        "why it is wrong": "in a full pool the mark goes past the capacity, though nothing past it was handed out: the overflow round's high-water marks are not at capacity (the lesson: raised \"to where each run that fitted ends\").",
        "source": "own",
    }, [
        ("""        for (;;) {
            if (total > p.capacity || seen > p.capacity - total) {   // the run does not fit""",
         """        for (;;) {
            atomicMax(&c->high, seen + total);
            if (total > p.capacity || seen > p.capacity - total) {   // the run does not fit"""),
        ("""                start = seen;
                atomicMax(&c->high, seen + total);
                break;""", """                start = seen;
                break;"""),
    ]),
    ("round-up-one-step-too-far", {
        "kind": "off by one (a rounding that adds a step to exact multiples)",
        "mistake": "the size is rounded with (bytes + kAlign) & ~(kAlign - 1) instead of (bytes + kAlign - 1).",
        "why it is wrong": "sizes that are already multiples of 16 (16, 32, ..., 512, and every request of the overflow round) take 16 bytes more than they need: \"rounded up to a multiple of 16, and no more\". The runs no longer match the blocks' rounded sizes, and the full pool refuses more than half.",
        "source": "own (the classic round-up slip; cf. the CUDA Programming Guide's own (x + a - 1) / a * a)",
    }, [
        ("    const unsigned long long size = (bytes + kAlign - 1) / kAlign * kAlign;",
         "    const unsigned long long size = (bytes + kAlign) & ~(kAlign - 1);"),
    ]),
]
