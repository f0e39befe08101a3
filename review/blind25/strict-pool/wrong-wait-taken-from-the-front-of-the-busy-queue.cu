// kind: wrong (default output by timing (fewer reuses), LATE 1 sums, and the record)
// mistake: hand puts its event in the busy deque first and then queues to's wait on busy_.front(), 'the event just put in', taking the front for the newest end
// why it is wrong: the front is the OLDEST event still busy: when every earlier hand's record is already done (they are moved to the spares first) it is this hand's event and all is right, but when the previous hand's record is not done yet (usual on the default run: the hands come microseconds apart) to waits for an older record, often one of its own stream's, and is not ordered after from's put: with both reuse policies off the pool will not give B the block A freed ('B reused the block A freed' in fewer than 6 rounds, 'reserved at most 64 MiB'), with LATE 1 B's add may read the word before A's copy ('rounds summed correctly' short), and the record shows B's block not handed over through a wait after A's put
// source: own
// A pool whose blocks pass from one stream to another only where the
// program says so: opportunistic reuse and the driver's own inserted
// dependencies are turned off, so the one way a block freed on stream A
// reaches stream B is an event B waits for.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void fill(int* x, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}

// Adds x into *out; each thread a strided share.
__global__ void sum(const int* x, int n, unsigned long long* out) {
    unsigned long long acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i];
    atomicAdd(out, acc);
}

// pools_supported says whether the device can allocate in stream order
// at all (cudaMallocAsync and memory pools).
static bool pools_supported(int device) {
    // TODO 1: ask the device whether it supports memory pools.
    int yes = 0;
    if (cudaDeviceGetAttribute(&yes, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return yes != 0;
}

// A StrictPool is a pool of the device's memory of its own on which a
// block freed on one stream reaches another stream only where the program
// hands it over: opportunistic reuse and the dependencies the driver would
// insert by itself are off; following the program's events stays on.
// main makes one, checks error() after each step, and uses nothing else
// of the pool's.
class StrictPool {
public:
    explicit StrictPool(int device);
    ~StrictPool();
    // error is the first CUDA error any of the pool's calls met, or
    // cudaSuccess.
    cudaError_t error() const;
    // get allocates bytes from the pool in s's order; nullptr (and error()
    // says why) when it cannot.
    void* get(size_t bytes, cudaStream_t s);
    // put gives p back to the pool in s's order: after the work queued on
    // s so far, which may still be using it.
    void put(void* p, cudaStream_t s);
    // hand orders to after everything queued on from so far, its puts
    // included, so that to's next get may take a block from put back;
    // the host does not wait.
    void hand(cudaStream_t from, cudaStream_t to);
    // policy is the pool's own value of reuse policy attr, asked of the
    // pool (-1 when it cannot say).
    int policy(cudaMemPoolAttr attr);
    // reserved_high is the most memory the pool has reserved from the
    // device at once.
    uint64_t reserved_high();

private:
    // TODO 2: what the pool keeps: the pool itself, whatever hand needs,
    // and the first error.
    int device_ = 0;
    cudaMemPool_t pool_ = nullptr;
    cudaError_t first_ = cudaSuccess;
    // hand's events: those recorded, oldest first, and those whose record
    // is done, ready to be recorded again. A wait holds the record made
    // before it, so re-recording is safe anyway; the pool only takes
    // back an event it knows is done, and makes a new one otherwise.
    std::deque<cudaEvent_t> busy_;
    std::vector<cudaEvent_t> spare_;
    void keep(cudaError_t e) {
        if (first_ == cudaSuccess && e != cudaSuccess) first_ = e;
    }
    // next_event is an event hand may record: a spare one, or a new one
    // (timing off); nullptr when none can be made.
    cudaEvent_t next_event();
};

cudaEvent_t StrictPool::next_event() {
    while (!busy_.empty() && cudaEventQuery(busy_.front()) == cudaSuccess) {
        spare_.push_back(busy_.front());
        busy_.pop_front();
    }
    if (!spare_.empty()) {
        cudaEvent_t e = spare_.back();
        spare_.pop_back();
        return e;
    }
    cudaEvent_t e = nullptr;
    const cudaError_t err = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    keep(err);
    return err == cudaSuccess ? e : nullptr;
}

// TODO 3: create the pool on device, with the two reuse policies off that
// let a block cross streams without an event of the program's, and what
// hand needs. A failure is kept for error(), not printed.
StrictPool::StrictPool(int device) {
    device_ = device;
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaError_t err = cudaMemPoolCreate(&pool_, &props);
    if (err != cudaSuccess) {
        keep(err);
        pool_ = nullptr;
        return;
    }
    int off = 0, on = 1;
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, &off));
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off));
    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseFollowEventDependencies, &on));
}

// TODO 4: give back what the constructor made.
StrictPool::~StrictPool() {
    for (cudaEvent_t e : busy_) cudaEventDestroy(e);
    for (cudaEvent_t e : spare_) cudaEventDestroy(e);
    busy_.clear();
    spare_.clear();
    if (pool_ != nullptr) cudaMemPoolDestroy(pool_);
}

// TODO 5: the first error.
cudaError_t StrictPool::error() const {
    return first_;
}

// TODO 6: a block from this pool, in s's order.
void* StrictPool::get(size_t bytes, cudaStream_t s) {
    if (pool_ == nullptr) return nullptr;
    void* p = nullptr;
    const cudaError_t err = cudaMallocFromPoolAsync(&p, bytes, pool_, s);
    keep(err);
    return err == cudaSuccess ? p : nullptr;
}

// TODO 7: the block back to the pool, in s's order.
void StrictPool::put(void* p, cudaStream_t s) {
    if (p != nullptr) keep(cudaFreeAsync(p, s));
}

// TODO 8: order to after what from has queued so far; the host goes on.
void StrictPool::hand(cudaStream_t from, cudaStream_t to) {
    cudaEvent_t e = next_event();
    if (e == nullptr) return;
    keep(cudaEventRecord(e, from));
    busy_.push_back(e);
    keep(cudaStreamWaitEvent(to, busy_.front(), 0));
}

// TODO 9: the pool's value of attr (an int attribute), asked of the pool.
int StrictPool::policy(cudaMemPoolAttr attr) {
    if (pool_ == nullptr) return -1;
    int v = -1;
    const cudaError_t err = cudaMemPoolGetAttribute(pool_, attr, &v);
    if (err != cudaSuccess) {
        keep(err);
        return -1;
    }
    return v;
}

// TODO 10: the most the pool has reserved at once (a 64-bit attribute, as
// Day 69's: read it into a uint64_t; cuda.h's name for it is cuuint64_t).
uint64_t StrictPool::reserved_high() {
    if (pool_ == nullptr) return 0;
    uint64_t v = 0;
    keep(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &v));
    return v;
}

// busy is work A queues after a put and before its hand, with the copy of
// a word B's round adds to its sum: it spins about a millisecond, as real
// work would take.
__global__ void busy() {
    const long long t0 = clock64();
    while (clock64() - t0 < 2000000) {}
}

// add adds *x to *out.
__global__ void add(const unsigned long long* x, unsigned long long* out) {
    *out += *x;
}

// arg is the program's argument i as a number from 1 to hi, or def when
// it is not given; the course's checks run it with other inputs too.
static int arg(int argc, char** argv, int i, int def, int hi) {
    if (argc <= i) return def;
    int v = atoi(argv[i]);
    if (v < 1 || v > hi) {
        fprintf(stderr, "argument %d is %s: give a number from 1 to %d\n", i, argv[i], hi);
        exit(2);
    }
    return v;
}

// Usage: strict_pool [ROUNDS] [MIB] [LATE] (6 rounds of 32 MiB by
// default; LATE, when 1, has A queue a kernel and a copy after each put
// and before its hand, the copy's word one B adds to the round's sum: a
// hand orders to after all that from queued so far, not only its puts).
int main(int argc, char** argv) {
    const int device = 0, rounds = arg(argc, argv, 1, 6, 64), mib = arg(argc, argv, 2, 32, 256);
    const int late = arg(argc, argv, 3, 0, 1);
    const int n = mib * (1 << 20) / (int)sizeof(int);
    const size_t bytes = (size_t)n * sizeof(int);
    CHECK(cudaSetDevice(device));
    if (!pools_supported(device)) {
        printf("device %d does not support memory pools: nothing to do\n", device);
        return 0;
    }
    cudaStream_t a, b;
    CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    unsigned long long* sums = nullptr;
    CHECK(cudaMalloc(&sums, rounds * sizeof(unsigned long long)));
    CHECK(cudaMemsetAsync(sums, 0, rounds * sizeof(unsigned long long), b));
    // LATE's words, one a round: A copies round r's (r + 1) from staged
    // (pinned) to words after its put, behind busy.
    unsigned long long *words = nullptr, *staged = nullptr;
    if (late) {
        CHECK(cudaMalloc(&words, rounds * sizeof(unsigned long long)));
        CHECK(cudaMallocHost(&staged, rounds * sizeof(unsigned long long)));
        for (int r = 0; r < rounds; r++) staged[r] = r + 1;
        printf("A queues more work after each put, before its hand\n");
    }

    int handed = 0, right = 0;
    uint64_t reserved = 0;
    {
        StrictPool pool(device);
        CHECK(pool.error());
        const int opportunistic = pool.policy(cudaMemPoolReuseAllowOpportunistic);
        const int internal = pool.policy(cudaMemPoolReuseAllowInternalDependencies);
        CHECK(pool.error());
        printf("pool: opportunistic %d, internal dependencies %d\n", opportunistic, internal);

        // One block travels: A fills it and gives it back, B gets it (the
        // same bytes, if the pool handed it over), fills and sums it and
        // gives it back, and A gets it again in the next round.
        for (int r = 0; r < rounds; r++) {
            int* pa = static_cast<int*>(pool.get(bytes, a));
            CHECK(pool.error());
            fill<<<(n + 255) / 256, 256, 0, a>>>(pa, n, r + 1);
            pool.put(pa, a);
            if (late) {
                busy<<<1, 1, 0, a>>>();
                CHECK(cudaMemcpyAsync(words + r, staged + r, sizeof(unsigned long long), cudaMemcpyHostToDevice, a));
            }
            pool.hand(a, b);
            int* pb = static_cast<int*>(pool.get(bytes, b));
            CHECK(pool.error());
            handed += pb == pa;
            fill<<<(n + 255) / 256, 256, 0, b>>>(pb, n, 2 * (r + 1));
            sum<<<128, 256, 0, b>>>(pb, n, sums + r);
            if (late) add<<<1, 1, 0, b>>>(words + r, sums + r);
            pool.put(pb, b);
            pool.hand(b, a);
            CHECK(pool.error());
        }
        CHECK(cudaGetLastError());
        unsigned long long got[64];
        CHECK(cudaMemcpyAsync(got, sums, rounds * sizeof(unsigned long long), cudaMemcpyDeviceToHost, b));
        CHECK(cudaStreamSynchronize(b));
        CHECK(cudaStreamSynchronize(a));
        for (int r = 0; r < rounds; r++) right += got[r] == 2ull * (r + 1) * n + (late ? r + 1 : 0);
        reserved = pool.reserved_high();
        CHECK(pool.error());
    }
    printf("%d of %d rounds: B reused the block A freed\n", handed, rounds);
    printf("%d of %d rounds summed correctly\n", right, rounds);
    printf("pool reserved at most %llu MiB for blocks of %d MiB\n", (unsigned long long)(reserved >> 20), mib);
    CHECK(cudaFree(sums));
    if (late) {
        CHECK(cudaFree(words));
        CHECK(cudaFreeHost(staged));
    }
    CHECK(cudaStreamDestroy(a));
    CHECK(cudaStreamDestroy(b));
    return 0;
}
