// kind: correct
// mistake: none. Design: ONE event for the run (ready, device 0, recorded on s[0] behind init_weights when device 1 asks for the weights) and a FRESH event every round made on device 1, recorded once behind produce, waited for by s[0] and DESTROYED RIGHT AWAY in the same call (at most one alive between the calls; every event call made with device 1 current); NO event for the pull: w1 from pool[1] by cudaMallocFromPoolAsync on s[1] BEFORE s[1] waits for ready, copied by cudaMemcpyAsync with cudaMemcpyDefault on s[1] (round 0's event, recorded on s[1] after it, orders main's free of w0 on s[0]); setup makes both pinned pools in one loop (value-initialised props, handle types none), makes them current in a second loop and grants device 1 read-write on pool[0]; each chunk from pool[0] by cudaMallocFromPoolAsync on s[1], reduced and freed on s[0]; finish frees w1 on s[1] and destroys ready
// why it is wrong: it is not: the design this set grades as right
// source: own (written from the student file, its harness, the lesson and the course hints)
// Two GPUs, one job: device 1 produces chunks of numbers and device 0
// adds them up. Each chunk is to land in device 0's memory, so it comes
// from device 0's pool, allocated on device 1's stream, the stream that
// writes it; device 0 reads it once device 1 is done and gives it back.
// Device 1 multiplies by weights made on device 0; it reads its own
// copy of them, copied from device 0 once. Each device has a pool of the
// program's own, made its current pool, so that a plain cudaMallocAsync
// on a device's stream draws from it.
//
// Arguments: rounds (5) and MiB per chunk (4). Needs two GPUs that can
// reach each other's memory; with fewer it says so and exits 2.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__device__ unsigned long long now_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Slow too (50 ms before it writes, longer than device 1's first
// allocation from its pool can take): device 1 asks for the weights while
// they are still being made, so a wait on the host would be seen waiting.
__global__ void init_weights(int* w, size_t n) {
    for (unsigned long long t0 = now_ns(); now_ns() - t0 < 50000000ull;) {}
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x) w[i] = (int)(i % 7) + 1;
}

// A slow producer: waits ns nanoseconds, then writes its chunk. A reader
// not ordered after it sees what the memory held before.
__global__ void produce(int* chunk, const int* w, size_t n, int round, unsigned long long ns) {
    unsigned long long t0 = now_ns();
    while (now_ns() - t0 < ns) {}
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x) chunk[i] = w[i] * (round + 1);
}

__global__ void reduce(const int* chunk, size_t n, unsigned long long* sum) {
    unsigned long long s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x) s += chunk[i];
    atomicAdd(sum, s);
}

const unsigned long long kProduceNs = 3 * 1000 * 1000ull;   // 3 ms
const int kBlocks = 264, kThreads = 256;

// What the two devices share. The streams are given: s[d] is on device d.
struct Two {
    cudaStream_t s[2];
    cudaMemPool_t pool[2];   // yours: pool[d], made on device d
    // Yours: whatever else you keep between the calls below.
    cudaEvent_t ready;   // device 0's: recorded on s[0] behind init_weights
};

// setup makes a pool on each device, makes it that device's current
// pool, and lets device 1 write into device 0's pool. Nothing has been
// allocated yet.
void setup(Two& t) {
    for (int d = 0; d < 2; d++) {
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.handleTypes = cudaMemHandleTypeNone;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = d;
        CHECK(cudaMemPoolCreate(&t.pool[d], &props));
    }
    for (int d = 0; d < 2; d++) CHECK(cudaDeviceSetMemPool(d, t.pool[d]));
    cudaMemAccessDesc grant = {};
    grant.location.type = cudaMemLocationTypeDevice;
    grant.location.id = 1;
    grant.flags = cudaMemAccessFlagsProtReadWrite;
    CHECK(cudaMemPoolSetAccess(t.pool[0], &grant, 1));
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventCreateWithFlags(&t.ready, cudaEventDisableTiming));
}

// share_weights returns device 1's own copy of the weights w0 that
// device 0's stream has just begun to make (bytes long), in device 1's
// memory. Called with device 0 current.
int* share_weights(Two& t, const int* w0, size_t bytes) {
    int* w1 = nullptr;
    // The weights are ready behind init_weights on s[0]; device 1 takes
    // its copy's memory from its own pool first (that needs nothing of
    // w0), then waits, then pulls. No event comes back: round 0's event,
    // recorded on s[1] after the copy, puts s[0] (and main's free of w0
    // there) after it.
    CHECK(cudaEventRecord(t.ready, t.s[0]));
    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocFromPoolAsync((void**)&w1, bytes, t.pool[1], t.s[1]));
    CHECK(cudaStreamWaitEvent(t.s[1], t.ready, 0));
    CHECK(cudaMemcpyAsync(w1, w0, bytes, cudaMemcpyDefault, t.s[1]));
    CHECK(cudaSetDevice(0));
    return w1;
}

// one_round: device 1 produces round r's chunk of n ints (produce, with
// its own weights w1 and kProduceNs) into memory of device 0's pool, and
// device 0 adds it into *sum (reduce); the chunk is given back to its
// pool once nothing uses it. No host waits.
void one_round(Two& t, int r, const int* w1, size_t n, unsigned long long* sum) {
    // A fresh event every round, made on device 1, recorded once, waited
    // for by s[0] and destroyed at once (the wait is queued: it keeps what
    // it needs), so at most one is alive between the calls.
    CHECK(cudaSetDevice(1));
    int* chunk = nullptr;
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[1]));
    produce<<<kBlocks, kThreads, 0, t.s[1]>>>(chunk, w1, n, r, kProduceNs);
    CHECK(cudaGetLastError());
    cudaEvent_t produced;
    CHECK(cudaEventCreateWithFlags(&produced, cudaEventDisableTiming));
    CHECK(cudaEventRecord(produced, t.s[1]));
    CHECK(cudaStreamWaitEvent(t.s[0], produced, 0));   // device 0's stream, after this round's produce
    CHECK(cudaEventDestroy(produced));
    CHECK(cudaSetDevice(0));
    reduce<<<kBlocks, kThreads, 0, t.s[0]>>>(chunk, n, sum);
    CHECK(cudaGetLastError());
    CHECK(cudaFreeAsync(chunk, t.s[0]));
}

// finish gives back device 1's weights and whatever else setup made,
// except the pools and streams (the caller's, after its last wait).
void finish(Two& t, int* w1) {
    CHECK(cudaSetDevice(1));
    CHECK(cudaFreeAsync(w1, t.s[1]));   // behind the last produce that reads it
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventDestroy(t.ready));
}

static const char* accessName(cudaMemAccessFlags f) {
    return f == cudaMemAccessFlagsProtReadWrite ? "read-write" : f == cudaMemAccessFlagsProtRead ? "read" : "none";
}

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? atoi(argv[1]) : 5;
    const int mib = argc > 2 ? atoi(argv[2]) : 4;
    if (rounds < 1 || mib < 1) {
        fprintf(stderr, "usage: %s [rounds >= 1] [MiB >= 1]\n", argv[0]);
        return 2;
    }
    int devices = 0, reach10 = 0, reach01 = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;
    if (devices >= 2) {
        CHECK(cudaDeviceCanAccessPeer(&reach10, 1, 0));
        CHECK(cudaDeviceCanAccessPeer(&reach01, 0, 1));
    }
    if (devices < 2 || !reach10 || !reach01) {
        printf("this exercise needs two GPUs that can reach each other's memory; this machine has %d GPU(s)%s\n",
               devices, devices >= 2 ? " that cannot" : "");
        return 2;
    }
    const size_t n = (size_t)mib << 18, bytes = n * sizeof(int);
    Two t = {};
    for (int d = 0; d < 2; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaStreamCreateWithFlags(&t.s[d], cudaStreamNonBlocking));
    }
    CHECK(cudaSetDevice(0));
    setup(t);
    for (int d = 0; d < 2; d++) {
        cudaMemPool_t current = nullptr;
        CHECK(cudaDeviceGetMemPool(&current, d));
        printf("device %d's current pool is the pool made for it: %s\n", d,
               current != nullptr && current == t.pool[d] ? "yes" : "no");
    }
    cudaMemAccessFlags f = cudaMemAccessFlagsProtNone;
    cudaMemLocation one = {cudaMemLocationTypeDevice, 1};
    if (t.pool[0] != nullptr) CHECK(cudaMemPoolGetAccess(&f, t.pool[0], &one));
    printf("device 1's access to device 0's pool: %s\n", accessName(f));

    // The sums, on device 0; the weights, from device 0's current pool.
    CHECK(cudaSetDevice(0));
    unsigned long long* sums = nullptr;
    CHECK(cudaMalloc((void**)&sums, rounds * sizeof *sums));
    CHECK(cudaMemsetAsync(sums, 0, rounds * sizeof *sums, t.s[0]));
    int* w0 = nullptr;
    CHECK(cudaMallocAsync((void**)&w0, bytes, t.s[0]));
    init_weights<<<kBlocks, kThreads, 0, t.s[0]>>>(w0, n);
    CHECK(cudaGetLastError());
    int* w1 = share_weights(t, w0, bytes);
    CHECK(cudaSetDevice(0));
    for (int r = 0; r < rounds; r++) one_round(t, r, w1, n, sums + r);
    finish(t, w1);
    CHECK(cudaSetDevice(0));
    CHECK(cudaFreeAsync(w0, t.s[0]));
    std::vector<unsigned long long> got(rounds);
    CHECK(cudaMemcpyAsync(got.data(), sums, rounds * sizeof *sums, cudaMemcpyDeviceToHost, t.s[0]));
    CHECK(cudaStreamSynchronize(t.s[0]));
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamSynchronize(t.s[1]));
    CHECK(cudaSetDevice(0));

    unsigned long long weights = 0;
    for (size_t i = 0; i < n; i++) weights += i % 7 + 1;
    int right = 0;
    for (int r = 0; r < rounds; r++) right += got[r] == weights * (r + 1);
    printf("%d of %d rounds summed right (chunks of %d MiB written by device 1, read by device 0)\n", right, rounds, mib);

    CHECK(cudaFree(sums));
    for (int d = 0; d < 2; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaStreamDestroy(t.s[d]));
        if (t.pool[d] != nullptr) CHECK(cudaMemPoolDestroy(t.pool[d]));
    }
    return 0;
}
