// A block pool with size classes: one cudaMalloc cut into aligned blocks
// of a few sizes, each request served from the smallest class that holds
// it, bad frees refused, and a block given back handed out again only once
// the work queued on it is done, without the host waiting for the GPU.
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                        \
    do {                                                                   \
        cudaError_t err_ = (call);                                         \
        if (err_ != cudaSuccess) {                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,  \
                    cudaGetErrorString(err_));                             \
            return 1;                                                      \
        }                                                                  \
    } while (0)

// Every block starts on this boundary, as cudaMalloc's own allocations do
// (it aligns to at least 256 bytes): a kernel may then read any block with
// aligned vector loads.
constexpr size_t kAlign = 256;

// A BlockPool hands out blocks of a few sizes, its classes, all cut from
// one cudaMalloc. Its lists live on the host: allocate() and deallocate()
// are host bookkeeping, and neither ever waits for the GPU. main uses
// nothing else of the pool's.
class BlockPool {
public:
    // init makes the pool's one cudaMalloc: `blocks` blocks of each class
    // (classBytes: ascending sizes, not always multiples of kAlign), each
    // its class's size rounded up to kAlign, class after class; its size is
    // their sum (the very last block's padding may be left out), no more.
    cudaError_t init(const std::vector<size_t>& classBytes, size_t blocks);
    // allocate returns a block of the smallest class that holds bytes, and
    // one that no work queued on the GPU still uses; nullptr when that
    // class has no such block now, or no class holds bytes.
    void* allocate(size_t bytes);
    // deallocate gives a block back. The work queued on stream so far may
    // still be using it: the block is not handed out again before that
    // work is done. It returns false, and changes nothing, for a pointer
    // that is not the start of one of the pool's blocks, or for a block
    // that is not handed out (already given back, done or not).
    bool deallocate(void* block, cudaStream_t stream);
    // destroy gives back everything the pool made.
    void destroy();

private:
    // The blocks are numbered class by class (class c's are c * blocks_
    // to c * blocks_ + blocks_ - 1). Each class keeps two singly linked
    // lists threaded through next_: its idle blocks, a stack, and its
    // blocks given back whose work may still run. A pending block owns an
    // event made and recorded at its give-back and destroyed once a query
    // finds it done, so the pool holds an event only while a block waits.
    enum State : unsigned char { kIdle, kOut, kPending };
    char* base_ = nullptr;
    size_t bytes_ = 0;
    int blocks_ = 0;
    std::vector<size_t> size_, stride_, start_;
    std::vector<int> first_;
    std::vector<int> next_;
    std::vector<State> state_;
    std::vector<cudaEvent_t> event_;
    std::vector<int> idle_, pending_;

    // harvest moves every pending block of class c whose event is done to
    // the class's idle list; it only asks, never waits.
    void harvest(int c);
    // find is the number of the block that starts at p, or -1.
    int find(const void* p) const;
};

// TODO 2: lay the classes out in one cudaMalloc, each block aligned, and
// make what will tell when a block's work is done.
cudaError_t BlockPool::init(const std::vector<size_t>& classBytes, size_t blocks) {
    if (classBytes.empty() || blocks == 0) return cudaErrorInvalidValue;
    const int nc = (int)classBytes.size();
    blocks_ = (int)blocks;
    size_ = classBytes;
    stride_.assign(nc, 0);
    start_.assign(nc, 0);
    first_.assign(nc, 0);
    bytes_ = 0;
    for (int c = 0; c < nc; c++) {
        stride_[c] = (classBytes[c] + kAlign - 1) / kAlign * kAlign;
        start_[c] = bytes_;
        first_[c] = c * blocks_;
        bytes_ += stride_[c] * blocks;
    }
    const int total = nc * blocks_;
    next_.assign(total, -1);
    state_.assign(total, kIdle);
    event_.assign(total, nullptr);
    idle_.assign(nc, -1);
    pending_.assign(nc, -1);
    for (int c = 0; c < nc; c++)
        for (int i = blocks_ - 1; i >= 0; i--) {
            const int b = first_[c] + i;
            next_[b] = idle_[c];
            idle_[c] = b;
        }
    void* p = nullptr;
    const cudaError_t err = cudaMalloc(&p, bytes_);
    if (err != cudaSuccess) return err;
    base_ = static_cast<char*>(p);
    return cudaSuccess;
}

void BlockPool::harvest(int c) {
    int prev = -1, cur = pending_[c];
    while (cur >= 0) {
        const int after = next_[cur];
        if (cudaEventQuery(event_[cur]) == cudaSuccess) {
            cudaEventDestroy(event_[cur]);
            event_[cur] = nullptr;
            if (prev < 0) pending_[c] = after;
            else next_[prev] = after;
            state_[cur] = kIdle;
            next_[cur] = idle_[c];
            idle_[c] = cur;
        } else {
            prev = cur;
        }
        cur = after;
    }
}

int BlockPool::find(const void* p) const {
    if (base_ == nullptr) return -1;
    const uintptr_t q = reinterpret_cast<uintptr_t>(p), lo = reinterpret_cast<uintptr_t>(base_);
    if (q < lo || q >= lo + bytes_) return -1;
    const size_t off = (size_t)(q - lo);
    int c = (int)size_.size() - 1;
    while (c > 0 && start_[c] > off) c--;
    const size_t in = off - start_[c];
    if (in % stride_[c] != 0 || in / stride_[c] >= (size_t)blocks_) return -1;
    return first_[c] + (int)(in / stride_[c]);
}

// TODO 3: a block of the right class whose work is done, or nullptr; the
// host never waits here.
void* BlockPool::allocate(size_t bytes) {
    if (base_ == nullptr) return nullptr;
    const int nc = (int)size_.size();
    int c = 0;
    while (c < nc && size_[c] < bytes) c++;
    if (c == nc) return nullptr;
    if (idle_[c] < 0) harvest(c);
    const int b = idle_[c];
    if (b < 0) return nullptr;
    idle_[c] = next_[b];
    next_[b] = -1;
    state_[b] = kOut;
    return base_ + start_[c] + (size_t)(b - first_[c]) * stride_[c];
}

// TODO 4: check the pointer, then give the block back in stream's order.
bool BlockPool::deallocate(void* block, cudaStream_t stream) {
    const int b = find(block);
    if (b < 0 || state_[b] != kOut) return false;
    cudaEvent_t ev = nullptr;
    if (cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) != cudaSuccess) return false;
    if (cudaEventRecord(ev, stream) != cudaSuccess) {
        cudaEventDestroy(ev);
        return false;
    }
    const int c = b / blocks_;
    event_[b] = ev;
    state_[b] = kPending;
    next_[b] = pending_[c];
    pending_[c] = b;
    return true;
}

// TODO 5: give back the memory and everything else init made.
void BlockPool::destroy() {
    for (size_t c = 0; c < pending_.size(); c++) {
        for (int b = pending_[c]; b >= 0; b = next_[b]) {
            if (event_[b] != nullptr) cudaEventDestroy(event_[b]);
            event_[b] = nullptr;
        }
        pending_[c] = -1;
    }
    if (base_ != nullptr) cudaFree(base_);
    base_ = nullptr;
    bytes_ = 0;
    size_.clear();
    stride_.clear();
    start_.clear();
    first_.clear();
    next_.clear();
    state_.clear();
    event_.clear();
    idle_.clear();
    pending_.clear();
}

// kGateNs is how long a held kernel waits for its gate at most: a pool
// that waits in deallocate() for a kernel that waits for the host would
// otherwise never end.
constexpr long long kGateNs = 200000000;

// hold is the work of one request: it fills its block with its tag, keeps
// the block about ns nanoseconds, as a longer kernel would, and, when gate
// is given, until the host opens it (kGateNs at most), then counts in
// *seen the words that no longer hold the tag (another request's kernel
// was given the same block while this one still used it) and says in
// *done that it is over.
__global__ void hold(int* block, int words, int tag, long long ns, const volatile int* gate, int* seen, volatile int* done) {
    __shared__ int wrong;
    if (threadIdx.x == 0) wrong = 0;
    for (int i = threadIdx.x; i < words; i += blockDim.x) block[i] = tag;
    __syncthreads();
    long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); while (t - t0 < ns || (gate != nullptr && *gate == 0 && t - t0 < ns + kGateNs));
    int mine = 0;
    for (int i = threadIdx.x; i < words; i += blockDim.x) mine += block[i] != tag;
    atomicAdd(&wrong, mine);
    __syncthreads();
    if (threadIdx.x == 0) {
        *seen = wrong;
        __threadfence_system();
        *done = 1;
    }
}

// arg is the program's argument i as a number from lo to hi, or def when
// it is not given; the course's checks run it with other inputs too.
static int arg(int argc, char** argv, int i, int def, int lo, int hi) {
    if (argc <= i) return def;
    int v = atoi(argv[i]);
    if (v < lo || v > hi) {
        fprintf(stderr, "argument %d is %s: give a number from %d to %d\n", i, argv[i], lo, hi);
        exit(2);
    }
    return v;
}

// take asks the pool for a block of bytes until it has one, as a program
// with nothing else to do would: a block given back comes back once its
// work is done. It gives up (nullptr) after two seconds.
static char* take(BlockPool& pool, size_t bytes) {
    auto start = std::chrono::steady_clock::now();
    for (;;) {
        if (void* p = pool.allocate(bytes)) return static_cast<char*>(p);
        if (std::chrono::steady_clock::now() - start > std::chrono::seconds(2)) return nullptr;
    }
}

// Usage: block_pool [BLOCKS] [REQUESTS] [CLASS_BYTES...] (8 blocks of each
// class, 192 requests, and classes of 1000, 3000 and 10000 bytes by
// default; the classes ascending).
int main(int argc, char** argv) {
    const int blocks = arg(argc, argv, 1, 8, 1, 64);
    const int requests = arg(argc, argv, 2, 192, 1, 4096);
    std::vector<size_t> classes;
    for (int i = 3; i < argc && i < 11; i++)
        classes.push_back(arg(argc, argv, i, 0, classes.empty() ? 4 : (int)classes.back() + 1, 1 << 20));
    if (classes.empty()) classes = {1000, 3000, 10000};
    const int nc = (int)classes.size();
    // classOf is the class a request of bytes belongs to.
    auto classOf = [&](size_t bytes) { return (int)(std::lower_bound(classes.begin(), classes.end(), bytes) - classes.begin()); };
    // The pool first: the untouched file stops here, before any CUDA call.
    BlockPool pool;
    CHECK(pool.init(classes, blocks));
    printf("pool of %d blocks of each class:", blocks);
    for (size_t c : classes) printf(" %zu", c);
    printf(" bytes\n");

    cudaStream_t s[4];
    for (cudaStream_t& st : s) CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));

    // Request k's kernel writes seen[k] in pinned host memory, read once,
    // after the one wait at the end, and done[k] as it ends; the gate the
    // held kernels of part 3 wait for are there too.
    const int slots = nc * blocks + blocks + 1 + 2 * blocks + blocks + 1 + requests;
    int* seen = nullptr;
    CHECK(cudaMallocHost(&seen, (2 * slots + 4) * sizeof(int)));
    std::fill(seen, seen + 2 * slots + 4, 0);
    volatile int* done = seen + slots;
    volatile int* gate = seen + 2 * slots;
    volatile int* gate2 = seen + 2 * slots + 1; // part 3b's
    volatile int* gate3 = seen + 2 * slots + 2; // part 3c's
    volatile int* gate4 = seen + 2 * slots + 3; // part 3e's
    std::vector<int> streamOf(slots);
    std::vector<size_t> bytesOf(slots);
    int k = 0;
    // serve runs request k on block p, on stream st, for ns nanoseconds
    // (and until the gate given opens). The block is first cleared in
    // the stream's order: a known write, so that the statistics library
    // sees a block handed out while another stream's work may still use
    // it, however the GPU's timing falls.
    auto serve = [&](char* p, size_t bytes, int st, long long ns, volatile int* gated = nullptr) {
        streamOf[k] = st;
        bytesOf[k] = bytes;
        const size_t whole = classes[classOf(bytes)];
        cudaError_t err = cudaMemsetAsync(p, 0, whole, s[st]);
        if (err != cudaSuccess) return err;
        hold<<<1, 128, 0, s[st]>>>((int*)p, (int)(whole / sizeof(int)), k + 1, ns, gated, seen + k, done + k);
        k++;
        return cudaSuccess;
    };

    // 1. Every block of every class, for requests from just above the class
    // below up to the class's own size.
    std::vector<char*> taken;
    for (int c = 0; c < nc; c++) {
        const size_t lo = c == 0 ? 1 : classes[c - 1] + 1;
        for (int i = 0; i < blocks; i++) {
            const size_t bytes = blocks == 1 ? classes[c] : lo + (classes[c] - lo) * i / (blocks - 1);
            char* p = static_cast<char*>(pool.allocate(bytes));
            if (p == nullptr) {
                printf("allocate(%zu) returned nullptr while %d blocks of %zu bytes were free\n", bytes, blocks - i, classes[c]);
                return 1;
            }
            CHECK(serve(p, bytes, k % 4, 20000));
            taken.push_back(p);
        }
        // The smallest class is all handed out, the larger ones all free:
        // a request of the smallest class still gets nullptr, not a block
        // of another class (which would leave that class one short).
        if (c == 0 && nc > 1) {
            void* other = pool.allocate(classes[0]);
            printf("allocate(%zu) with its class all handed out and larger ones free: %s\n", classes[0], other == nullptr ? "nullptr" : "a block");
            if (other != nullptr && !pool.deallocate(other, s[0])) {
                printf("deallocate refused a block the pool had handed out\n");
                return 1;
            }
        }
    }
    CHECK(cudaGetLastError());
    printf("took every block: %d of each class\n", blocks);
    bool none = true;
    for (size_t c : classes) none = pool.allocate(c) == nullptr && none;
    printf("allocate on an empty pool: %s\n", none ? "nullptr" : "a block");
    printf("allocate(%zu), more than every class: %s\n", classes.back() + 1,
           pool.allocate(classes.back() + 1) == nullptr ? "nullptr" : "a block");

    std::vector<std::pair<char*, size_t>> sorted;
    for (int i = 0; i < (int)taken.size(); i++) sorted.push_back({taken[i], classes[i / blocks]});
    std::sort(sorted.begin(), sorted.end());
    bool aligned = true, apart = true;
    for (size_t i = 0; i < sorted.size(); i++) {
        aligned = aligned && (uintptr_t)sorted[i].first % kAlign == 0;
        if (i > 0) apart = apart && sorted[i].first >= sorted[i - 1].first + sorted[i - 1].second;
    }
    printf("blocks aligned to %zu bytes: %s, overlapping: %s\n", kAlign, aligned ? "yes" : "no", apart ? "no" : "yes");

    // 2. The frees a pool must refuse, while every block but the first is
    // still handed out; then every block back, each on the stream its
    // request ran on.
    bool gaveBack = pool.deallocate(taken[0], s[streamOf[0]]);
    printf("double free refused: %s\n", pool.deallocate(taken[0], s[0]) ? "no" : "yes");
    const size_t into = classes.back() > kAlign ? kAlign : 4;
    printf("pointer %zu bytes into a block refused: %s\n", into, pool.deallocate(taken.back() + into, s[0]) ? "no" : "yes");
    int outside = 0;
    printf("pointer outside the pool refused: %s\n", pool.deallocate(&outside, s[0]) ? "no" : "yes");
    char* past = sorted.back().first + (sorted.back().second + kAlign - 1) / kAlign * kAlign;
    printf("pointer just past the last block refused: %s\n", pool.deallocate(past, s[0]) ? "no" : "yes");
    for (int i = 1; i < (int)taken.size(); i++) gaveBack = pool.deallocate(taken[i], s[streamOf[i]]) && gaveBack;
    printf("gave every block back: %s\n", gaveBack ? "yes" : "no, a deallocate refused a block the pool had handed out");

    // 3. The smallest class's blocks, each held by a kernel on one of three
    // streams until the host opens the gate (after the early request), and
    // given back right after its launch: while the kernels run, none of
    // them may be handed out again. The fourth stream stays free for the
    // request that asks too early. The gate makes "while they run" true
    // however late this process gets the CPU on a loaded machine, up to
    // kGateNs; a block whose kernel had ended before the request may come
    // back, and does not count.
    std::vector<char*> held;
    for (int i = 0; i < blocks; i++) {
        char* p = take(pool, classes[0]);
        if (p == nullptr) {
            printf("no block of %zu bytes came back within 2 s: a block given back must come back once the work queued before its deallocate is done\n", classes[0]);
            return 1;
        }
        held.push_back(p);
    }
    std::vector<int> heldK;
    bool waited = false; // a kernel ended, its gate shut, before its deallocate() returned
    for (int i = 0; i < blocks; i++) {
        heldK.push_back(k);
        CHECK(serve(held[i], classes[0], i % 3, 2000000, gate));
        if (!pool.deallocate(held[i], s[i % 3])) {
            printf("deallocate refused a block the pool had handed out\n");
            return 1;
        }
        waited = waited || done[heldK[i]];
    }
    printf("deallocate() waited for its block's kernel: %s\n", waited ? "yes" : "no");
    // Asked on the idle fourth stream: a refusal must change nothing (a
    // pool that marks the block with this stream's event before it
    // refuses would hand the block out while its kernel still runs).
    printf("double free while its kernel runs refused: %s\n", pool.deallocate(held[0], s[3]) ? "no" : "yes");
    std::vector<int> ended(blocks);
    for (int i = 0; i < blocks; i++) ended[i] = done[heldK[i]];
    char* early = static_cast<char*>(pool.allocate(classes[0]));
    *gate = 1;
    bool late = false; // the block's kernel had ended before the request
    for (int i = 0; i < blocks; i++) late = late || (early == held[i] && ended[i]);
    printf("allocate while every block of %zu bytes is in use: %s\n", classes[0],
           early == nullptr ? "nullptr" : late ? "not asked in time (this process came late: a kernel had ended)" : "a block");
    if (late) {
        pool.deallocate(early, s[3]);
        early = nullptr;
    }
    if (early != nullptr) {
        // Another request on the block, on the idle stream: if a kernel
        // still holds the block, one of the two sees its words change.
        CHECK(serve(early, classes[0], 3, 2000000));
        pool.deallocate(early, s[3]);
    }

    // 3b. The smallest class's blocks again, half done and half in use:
    // every other block by address, the lowest first, is given back on
    // the idle fourth stream with no work queued on it; the others are
    // each held by a kernel on one of three streams until the host opens
    // a gate. allocate() may hand out the blocks that are done, and no
    // other: a pool that asks one event for many blocks (the class's last
    // deallocate, say) hands out a block still in use. Each block handed
    // out is cleared on the fourth stream, as serve() does, and given back
    // once the gate is open. Done twice: the held blocks given back first
    // (3b), then last (3c), so that a pool that looks only at the block
    // given back first (the front of a queue) or last (the top of a stack)
    // says nullptr while blocks are done, whichever end it looks at.
    auto mixed = [&](bool heldFirst, volatile int* gated) -> int {
        std::vector<char*> again;
        for (int i = 0; i < blocks; i++) {
            char* p = take(pool, classes[0]);
            if (p == nullptr) {
                printf("no block of %zu bytes came back within 2 s: a block given back must come back once the work queued before its deallocate is done\n", classes[0]);
                return 1;
            }
            again.push_back(p);
        }
        std::sort(again.begin(), again.end());
        std::vector<char*> busy;
        std::vector<int> busyK;
        auto giveDone = [&]() {
            for (int i = 0; i < blocks; i += 2)
                if (!pool.deallocate(again[i], s[3])) return false;
            return true;
        };
        if (!heldFirst && !giveDone()) {
            printf("deallocate refused a block the pool had handed out\n");
            return 1;
        }
        for (int i = 1; i < blocks; i += 2) {
            busy.push_back(again[i]);
            busyK.push_back(k);
            CHECK(serve(again[i], classes[0], (i / 2) % 3, 2000000, gated));
            if (!pool.deallocate(again[i], s[(i / 2) % 3])) {
                printf("deallocate refused a block the pool had handed out\n");
                return 1;
            }
        }
        if (heldFirst && !giveDone()) {
            printf("deallocate refused a block the pool had handed out\n");
            return 1;
        }
        // Asked until a block still in use comes out, or every block that
        // is done has and the next request says nullptr; 100 ms at most
        // (the events of the blocks given back on the idle stream complete
        // a moment after their record, and the held kernels wait longer).
        const int ready = (blocks + 1) / 2;
        std::vector<char*> got;
        int inUse = 0; // handed out while its kernel still ran
        const auto asked = std::chrono::steady_clock::now();
        while ((int)got.size() < blocks && inUse == 0 && std::chrono::steady_clock::now() - asked < std::chrono::milliseconds(100)) {
            char* p = static_cast<char*>(pool.allocate(classes[0]));
            if (p == nullptr) {
                if ((int)got.size() >= ready) break;
                continue;
            }
            got.push_back(p);
            for (size_t j = 0; j < busy.size(); j++) inUse += p == busy[j] && !done[busyK[j]];
            CHECK(cudaMemsetAsync(p, 0, classes[0], s[3]));
        }
        *gated = 1;
        printf("allocate with %d of %d blocks of %zu bytes done, %s: %zu handed out, %d of them in use\n", ready, blocks,
               classes[0], heldFirst ? "the others in use" : "given back before the others in use", got.size(), inUse);
        for (char* p : got)
            if (!pool.deallocate(p, s[3])) {
                printf("deallocate refused a block the pool had handed out\n");
                return 1;
            }
        return 0;
    };
    if (blocks >= 2 && (mixed(true, gate2) || mixed(false, gate3))) return 1;

    // 3d. A launch of the caller's that fails (more threads than a block
    // may have) leaves its error for the caller's own check: allocate()
    // asks events, and must not take that error away (a "not ready"
    // answer is not an error the runtime keeps).
    // (Which error the runtime names differs: CUDA 13 on the H200 says
    // "invalid argument", older ones an invalid configuration.)
    hold<<<1, 2048, 0, s[3]>>>(nullptr, 0, 0, 0, nullptr, nullptr, nullptr);
    const cudaError_t failed = cudaPeekAtLastError();
    char* asked = take(pool, classes[0]);
    const cudaError_t kept = cudaGetLastError();
    printf("a launch that failed before allocate() is still the last error after it: %s\n",
           failed != cudaSuccess && kept == failed ? "yes" : kept == cudaSuccess ? "no, allocate() took it away" : cudaGetErrorString(kept));
    if (asked != nullptr && !pool.deallocate(asked, s[3])) {
        printf("deallocate refused a block the pool had handed out\n");
        return 1;
    }

    // 3e. Blocks of two classes handed out at once: every block of the
    // next class taken first and kept; then every block of the smallest
    // class held by a kernel on one of three streams until the host opens
    // a gate, and given back right after its launch; then the next class's
    // blocks given back on the idle fourth stream, with nothing queued
    // there. The smallest class's blocks are all still in use, whatever
    // became of the other class's: allocate() must say nullptr. A pool
    // whose blocks of different classes share what tells it their work is
    // done (block j of every class one event, its latest record the other
    // class's) hands out a block still in use. Asked for 20 ms (the fourth
    // stream's records complete a moment after they are made; the held
    // kernels hold 2 ms at least, and until the gate opens); a block whose
    // kernel had ended when it came out does not count.
    if (nc >= 2) {
        std::vector<char*> others;
        for (int i = 0; i < blocks; i++) {
            char* p = take(pool, classes[1]);
            if (p == nullptr) {
                printf("no block of %zu bytes came back within 2 s: a block given back must come back once the work queued before its deallocate is done\n", classes[1]);
                return 1;
            }
            others.push_back(p);
        }
        std::vector<char*> busy;
        for (int i = 0; i < blocks; i++) {
            char* p = take(pool, classes[0]);
            if (p == nullptr) {
                printf("no block of %zu bytes came back within 2 s: a block given back must come back once the work queued before its deallocate is done\n", classes[0]);
                return 1;
            }
            busy.push_back(p);
        }
        std::vector<int> busyK;
        for (int i = 0; i < blocks; i++) {
            busyK.push_back(k);
            CHECK(serve(busy[i], classes[0], i % 3, 2000000, gate4));
            if (!pool.deallocate(busy[i], s[i % 3])) {
                printf("deallocate refused a block the pool had handed out\n");
                return 1;
            }
        }
        for (char* p : others)
            if (!pool.deallocate(p, s[3])) {
                printf("deallocate refused a block the pool had handed out\n");
                return 1;
            }
        char* got = nullptr;
        const auto since = std::chrono::steady_clock::now();
        while (got == nullptr && std::chrono::steady_clock::now() - since < std::chrono::milliseconds(20))
            got = static_cast<char*>(pool.allocate(classes[0]));
        bool inUse = false; // its kernel still ran after allocate() returned it
        for (int i = 0; i < blocks; i++) inUse = inUse || (got == busy[i] && !done[busyK[i]]);
        if (inUse) {
            // Another request on the block, on the fourth stream: the
            // held kernel sees its words change.
            CHECK(serve(got, classes[0], 3, 200000));
        }
        *gate4 = 1;
        printf("allocate while every block of %zu bytes is in use, the next class's given back after them on another stream: %s\n", classes[0],
               got == nullptr ? "nullptr" : inUse ? "a block" : "not asked in time (this process came late: a kernel had ended)");
        if (got != nullptr && !pool.deallocate(got, s[3])) {
            printf("deallocate refused a block the pool had handed out\n");
            return 1;
        }
    }

    // 4. Requests of every class in turn, of sizes spread over the class,
    // each on the next stream, each taking a block as soon as one of its
    // class is free.
    unsigned x = 12345;
    for (int r = 0; r < requests; r++) {
        const int c = r % nc;
        const size_t lo = c == 0 ? 1 : classes[c - 1] + 1;
        x = x * 1103515245u + 12345u;
        const size_t bytes = lo + (x >> 8) % (classes[c] - lo + 1);
        char* p = take(pool, bytes);
        if (p == nullptr) {
            printf("request %d: no block of %zu bytes came back within 2 s: a block given back must come back once the work queued before its deallocate is done\n", r, classes[c]);
            return 1;
        }
        CHECK(serve(p, bytes, r % 4, 200000));
        if (!pool.deallocate(p, s[r % 4])) {
            printf("request %d: deallocate refused a block the pool had handed out\n", r);
            return 1;
        }
    }
    CHECK(cudaGetLastError());

    // The one wait of the program: then what every kernel saw.
    CHECK(cudaDeviceSynchronize());
    long long overwritten = 0;
    int first = -1;
    for (int i = 0; i < k; i++) {
        overwritten += seen[i];
        if (seen[i] != 0 && first < 0) first = i;
    }
    if (first >= 0)
        printf("request %d (%zu bytes, stream %d) found %d of its words overwritten: its block was handed to another request while its kernel still used it\n",
               first, bytesOf[first], streamOf[first], seen[first]);
    printf("%d requests served, words overwritten while their request held them: %lld\n", k, overwritten);
    // The pool is destroyed with a block of each class still handed out
    // (every request's work is done now, so each class has one to give):
    // destroy() gives back everything the pool made, whatever is handed
    // out. A pool that keeps events for the blocks it hands out, or lends
    // them from a spare list, holds some events now that no given-back
    // block does (review/blind15, issue 36).
    int outAtEnd = 0;
    for (size_t c : classes) outAtEnd += pool.allocate(c) != nullptr;
    printf("pool destroyed with %d of %d classes' blocks still handed out\n", outAtEnd, nc);
    pool.destroy();
    CHECK(cudaFreeHost(seen));
    for (cudaStream_t st : s) CHECK(cudaStreamDestroy(st));
    return 0;
}
