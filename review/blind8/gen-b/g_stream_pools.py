from mk import student, sub, build

T = student("exercises/day087/stream_pools.cu")

ALLOC_OLD = """__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    (void)p;
    (void)bytes;
    return nullptr;
}"""
ALLOC_NEW = """// Each warp of a block has a row of slots in shared memory: every asking
// lane leaves its rounded size in its slot, every lane adds up the slots of
// the asking lanes below it, and the highest asking lane, which has the
// whole run's size, moves the offset and leaves the run's start (or ~0 for
// a refusal) in its own slot for the others. No shuffles: the rows are the
// warp's mailbox.
constexpr int kMaxWarps = kThreads / kWarp;
constexpr unsigned long long kRefused = ~0ull;
__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    __shared__ unsigned long long sizes[kMaxWarps][kWarp];
    __shared__ unsigned long long start[kMaxWarps][kWarp];   // indexed by the leader: two groups of one warp never share a slot
    const unsigned mask = __activemask();
    const int lane = threadIdx.x % kWarp;   // the kernels are one-dimensional, their blocks whole warps
    const int w = threadIdx.x / kWarp;
    sizes[w][lane] = (bytes + kAlign - 1) / kAlign * kAlign;
    __syncwarp(mask);
    unsigned long long below = 0, total = 0;
    for (unsigned m = mask; m != 0; m &= m - 1) {
        const int l = __ffs(m) - 1;
        const unsigned long long s = sizes[w][l];
        if (l < lane) below += s;
        total += s;
    }
    const int leader = 31 - __clz(mask);
    if (lane == leader) {
        // The offset moves only to a value within the capacity: a run that
        // does not fit leaves it as it is.
        unsigned long long old = *(volatile unsigned long long*)&p.counters->offset;
        unsigned long long got = kRefused;
        while (old + total <= p.capacity) {
            const unsigned long long seen = atomicCAS(&p.counters->offset, old, old + total);
            if (seen == old) {
                got = old;
                break;
            }
            old = seen;
        }
        if (got == kRefused) atomicAdd(&p.counters->failed, (unsigned long long)__popc(mask));
        else atomicMax(&p.counters->high, got + total);
        start[w][leader] = got;
    }
    __syncwarp(mask);
    const unsigned long long at = start[w][leader];
    __syncwarp(mask);   // every lane has read the row before a later call may write it again
    if (at == kRefused) return nullptr;
    return p.base + at + below;
}"""

CLASS_OLD = T[T.index("class StreamPools {"):T.index("// arg is the program's argument i")]
CLASS_NEW = """// zero_offset empties a pool: its offset, not what it counted since init.
__global__ void zero_offset(PoolCounters* c) {
    c->offset = 0;
}

// Each pool's counters sit on a line of 128 bytes of their own, so that the
// four streams' atomics never share a cache line.
constexpr size_t kCounterLine = 128;

class StreamPools {
public:
    // The slices are one cudaMalloc (ready for every stream when it
    // returns); the counters another, each pool's cleared on its own stream.
    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        slice_ = slice;
        CHECK(cudaMalloc(&arena_, (size_t)n * slice));
        CHECK(cudaMalloc(&lines_, (size_t)n * kCounterLine));
        for (int i = 0; i < n; i++) CHECK(cudaMemsetAsync(counters(i), 0, sizeof(PoolCounters), streams[i]));
    }
    DevicePool pool(int i) const {
        return DevicePool{arena_ + (size_t)i * slice_, slice_, counters(i)};
    }
    // A reset is a one-thread kernel on the pool's stream: it runs after the
    // stream's last kernel and before its next.
    void reset(int i, cudaStream_t s) {
        zero_offset<<<1, 1, 0, s>>>(counters(i));
        CHECK(cudaGetLastError());
    }
    void used(int i, cudaStream_t s, PoolCounters* to) {
        CHECK(cudaMemcpyAsync(to, counters(i), sizeof(PoolCounters), cudaMemcpyDeviceToHost, s));
    }
    void destroy() {
        CHECK(cudaFree(lines_));
        CHECK(cudaFree(arena_));
        lines_ = nullptr;
        arena_ = nullptr;
    }

private:
    PoolCounters* counters(int i) const {
        return reinterpret_cast<PoolCounters*>(lines_ + (size_t)i * kCounterLine);
    }
    unsigned long long slice_ = 0;
    char* arena_ = nullptr;   // the slices, one after another
    char* lines_ = nullptr;   // the counters, one line a pool
};

"""

C = sub(T, ALLOC_OLD, ALLOC_NEW)
C = sub(C, CLASS_OLD, CLASS_NEW)

CORRECT = ("correct",
           "none: the lanes of a warp meet in a row of shared memory (a slot per lane for its rounded size, and the run's start left in the leader's slot of a second row), the highest asking lane moves the offset with a CAS loop that never passes the capacity and keeps the counters (atomicMax, popc of the asking mask); slices and counters are two cudaMallocs, each pool's counters on a 128-byte line of their own, cleared by cudaMemsetAsync on its stream; reset is a one-thread kernel on the pool's stream; used a cudaMemcpyAsync; destroy two cudaFrees.",
           "none.",
           "none (written from the lesson and the student file).")

W = [
    ("refusals-counted-up-to-the-leader-lane",
     ("wrong (shows only with GAPS 1: the round whose asking lanes have gaps at the top and in the middle)",
      "a refused run is counted as leader + 1 requests (the lanes from 0 up to the highest asking lane) instead of the number of asking lanes, __popc(mask).",
      "in the work rounds no run is refused, and in the overflow round every lane of a warp asks, so leader + 1 is 32, the right count; in the gapped round the asking lanes are those not 3 mod 4, the highest is lane 30, and each refused warp is counted as 31 requests where 24 were refused: the pools count more refusals than there were.",
      "pytorch/pytorch#98159 (a __popc over a ballot of the wrong set of lanes: a count of lanes that did not all vote), ORNL/HeCBench#177 (a warp count taken from the lane numbers instead of the ballot)"),
     [("atomicAdd(&p.counters->failed, (unsigned long long)__popc(mask));",
       "atomicAdd(&p.counters->failed, (unsigned long long)(leader + 1));")]),
    ("reset-kernel-launched-without-its-stream",
     ("wrong (race: the reset is ordered with nothing on the pool's stream; the output shows it only when the legacy stream's kernel lands in the middle of a round)",
      "reset launches zero_offset<<<1, 1>>> without the stream argument, so the reset runs on the legacy default stream, not on s.",
      "the pools' streams are non-blocking: nothing orders the legacy stream with them, so a reset may run while the previous round's kernel still allocates from the pool, or after the next round's kernel has begun; the round's offsets and blocks are then wrong by chance, and the record shows a write to the counters not ordered with the kernels that use them.",
      "openvdb/fvdb-core#587 (fifteen kernel launches that left out the stream and ran on stream 0, racing the callers' non-default streams), microsoft/onnxruntime#6599 (a build error added for launches without an explicit stream)"),
     [("zero_offset<<<1, 1, 0, s>>>(counters(i));", "zero_offset<<<1, 1>>>(counters(i));")]),
    ("lane-sizes-shared-by-every-warp-of-the-block",
     ("wrong (shared-memory race between the warps of a block: wrong places, overlaps, now and then)",
      "the row of size slots is one row for the whole thread block (sizes[kWarp], indexed by lane), not one row per warp; the run's start keeps its row per warp.",
      "lane 5 of every warp of the block writes the same slot: a warp that reads the row after another warp wrote it adds up the other warp's sizes, so its lanes' places and its run's total are wrong; blocks overlap or leave gaps depending on how the warps interleave, and a racecheck run reports the hazard on every call.",
      "alpaka-group/mallocMC#150 (a shared-memory array indexed by a warp number of the wrong scope in a device allocator: warps wrote each other's slots), ikawrakow/ik_llama.cpp#2502 (a shared array written and read back by several warps with nothing between them, found by racecheck)"),
     [("__shared__ unsigned long long sizes[kMaxWarps][kWarp];", "__shared__ unsigned long long sizes[kWarp];"),
      ("sizes[w][lane] = (bytes", "sizes[lane] = (bytes"),
      ("const unsigned long long s = sizes[w][l];", "const unsigned long long s = sizes[l];")]),
    ("counters-padded-past-their-allocation",
     ("wrong (out-of-bounds accesses: memcheck sees them; the figures are right, unless the driver checks the clear's range against its allocation and fails it at once)",
      "the counters are placed one 128-byte line apart, but their allocation is sized n * sizeof(PoolCounters) (96 bytes) instead of n * kCounterLine.",
      "pools 1 to 3 keep their counters 128, 256 and 384 bytes into a 96-byte allocation: every clear, reset, atomic and copy of theirs is past the allocation's end; cudaMalloc's granularity leaves those bytes mapped and unused here, so every figure is right, but compute-sanitizer's memcheck (the secret checks' run) reports each access.",
      "paboyle/Grid#198 (buffers allocated smaller than the stride the loop writes with: a stray write past the allocation that only valgrind saw), rapidsai/rmm#1899 (what memcheck can and cannot see inside a larger allocation)"),
     [("CHECK(cudaMalloc(&lines_, (size_t)n * kCounterLine));", "CHECK(cudaMalloc(&lines_, (size_t)n * sizeof(PoolCounters)));")]),
]

build("stream-pools", "cu", "//", C, CORRECT, W)
