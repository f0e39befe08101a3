// A pool resource put through four phases on two streams, and watched
// from outside: every block it hands out is checked against the chunks
// its upstream gave it and the blocks still in use, and every kernel's
// sum against what was written.
//
//   1. rounds side by side: each stream takes a 4 MiB block, uses it and
//      gives it back, the streams taking turns at asking first;
//   2. four 4 MiB blocks on one stream, given back out of order, then
//      16 MiB on that stream: the four must have become one block again;
//   3. the 16 MiB on the other stream (after the first one's work on
//      it), then 4 MiB beside it: the pool must grow; both blocks are
//      given back on the first stream, after it waited for the second;
//   4. 20 MiB, more than a chunk: a chunk of its own.
//
// With a third stream asked for (the course's hidden runs), a second pool
// of 8 MiB chunks, on a region of its own, then serves three streams:
//
//   5. B takes 8 MiB and C 4 MiB, each from a new chunk; A takes the 4 MiB
//      left of C's chunk (after C's upstream cleared it); each uses its
//      block; B and C give theirs back, C last; then A takes 8 MiB (only
//      B's block fits) and 4 MiB (only C's): each take must wait for the
//      stream that freed that block, not for the last free of any stream,
//      and a wait for B orders nothing of C's. A gives all three back;
//      then B takes 8 MiB and C 4 MiB, both from blocks A freed: C must
//      wait for A too, even after B's take left A's other block behind B's
//      wait (a pool that moves the freeing stream's list to B must record
//      B's event again after that wait).
//   6. on a third pool of 8 MiB chunks: A takes two 4 MiB blocks side by
//      side, uses the lower one and gives it back, then uses the upper one
//      and gives it back too, so that the two join; then B takes 8 MiB
//      (only the joined block fits) and uses it in two halves, the upper
//      half's kernels given the address A's last kernels had: B must wait
//      for A's event recorded at the later free, since the earlier one
//      comes before A's work on the upper block.
//   7. on a fourth pool of 8 MiB chunks: C takes 8 MiB (a new chunk),
//      uses it and gives it back; A takes 4 MiB of it (after C's work);
//      then B takes 4 MiB, which only the rest of C's block holds: B must
//      wait for C, the stream that freed the block, and not for A, whose
//      wait for C orders nothing of B's (a pool that lists the rest as
//      A's must record A's event again after A's wait).
//   8. on the same pool: B takes 4 MiB, A uses it after waiting for B and
//      gives it back; then B takes 4 MiB again: the block is free in A's
//      order (the stream deallocate names), not in the order of B, which
//      allocated it, so B must wait for A or take other memory.
#include "memory_resource.h"
#include "pool_resource.h"
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

constexpr size_t MiB = size_t(1) << 20;

__global__ void fill(int* x, size_t n, int v) {
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) x[i] = v;
}

__global__ void sum(const int* x, size_t n, unsigned long long* out) {
    unsigned long long acc = 0;
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i];
    atomicAdd(out, acc);
}

// chunk_source is the pool's upstream in this program, a resource made
// to watch the pool: it cuts its chunks in order from one region, so
// that two chunks can lie side by side (cudaMallocAsync's may or may
// not), zeroes each chunk on the stream that asked for it (so a chunk is
// ready in that stream's order, as a stream-ordered upstream's memory
// is), and keeps what it handed out. Its copies share that state, as
// RMM's resources do.
class chunk_source {
    struct State {
        char* base;
        size_t size, used = 0;
        int taken = 0, returned = 0, bad = 0;
        std::vector<std::pair<char*, size_t>> out;
    };
    std::shared_ptr<State> s_;
    static size_t round(size_t n) { return (n + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment; }

public:
    chunk_source(void* base, size_t size) : s_(std::make_shared<State>()) {
        s_->base = static_cast<char*>(base);
        s_->size = size;
    }
    void* allocate(mr::stream_ref s, size_t bytes, size_t alignment = mr::default_alignment) {
        mr::check_alignment(alignment);
        const size_t n = round(bytes);
        if (s_->used + n > s_->size) {
            fprintf(stderr, "upstream: the pool asks for a chunk of %zu bytes after %d chunks (%zu MiB): this program needs 52 MiB of chunks at most; a pool that does not reuse what it has grows without end\n",
                    bytes, s_->taken, s_->used / MiB);
            exit(1);
        }
        char* p = s_->base + s_->used;
        s_->used += n;
        s_->taken++;
        s_->out.push_back({p, n});
        for (size_t off = 0; off < n; off += MiB) CHECK(cudaMemsetAsync(p + off, 0, std::min(MiB, n - off), s.get()));
        return p;
    }
    void deallocate(mr::stream_ref, void* p, size_t bytes, size_t = mr::default_alignment) noexcept {
        for (auto it = s_->out.begin(); it != s_->out.end(); ++it)
            if (it->first == p && it->second == round(bytes)) {
                s_->out.erase(it);
                s_->returned++;
                return;
            }
        s_->bad++;
    }
    void* allocate_sync(size_t bytes, size_t alignment = mr::default_alignment) {
        void* p = allocate(mr::stream_ref{cudaStream_t{}}, bytes, alignment);
        CHECK(cudaStreamSynchronize(cudaStream_t{}));
        return p;
    }
    void deallocate_sync(void* p, size_t bytes, size_t alignment = mr::default_alignment) noexcept { deallocate(cudaStream_t{}, p, bytes, alignment); }
    bool operator==(const chunk_source& o) const { return s_ == o.s_; }
    bool operator!=(const chunk_source& o) const { return s_ != o.s_; }
    friend void get_property(const chunk_source&, mr::device_accessible) {}

    int taken() const { return s_->taken; }
    int returned() const { return s_->returned; }
    int bad() const { return s_->bad; }
    // holds says whether [p, p+n) lies inside one chunk handed out.
    bool holds(const void* p, size_t n) const {
        const char* c = static_cast<const char*>(p);
        for (auto& o : s_->out)
            if (c >= o.first && c + n <= o.first + o.second) return true;
        return false;
    }
};

// watch is what the program sees of the pool: the blocks it holds and
// what was wrong with the blocks it got.
struct watch {
    chunk_source up;
    mr::resource_ref res;
    std::vector<std::pair<char*, size_t>> held;
    int handed = 0, misaligned = 0, outside = 0, overlapping = 0;
    unsigned long long* sums;
    std::vector<unsigned long long> want;

    int* take(mr::stream_ref s, size_t bytes, const char* what) {
        char* p = static_cast<char*>(res.allocate(s, bytes));
        if (p == nullptr) {
            fprintf(stderr, "%s: the pool gave no memory for %zu bytes: when no free block fits, a pool asks its upstream for another chunk\n", what, bytes);
            exit(1);
        }
        handed++;
        if (reinterpret_cast<uintptr_t>(p) % mr::default_alignment != 0) misaligned++;
        if (!up.holds(p, bytes)) outside++;
        for (auto& h : held)
            if (p < h.first + h.second && h.first < p + bytes) overlapping++;
        held.push_back({p, bytes});
        return reinterpret_cast<int*>(p);
    }
    void give(mr::stream_ref s, int* p, size_t bytes) {
        for (auto it = held.begin(); it != held.end(); ++it)
            if (it->first == reinterpret_cast<char*>(p)) {
                held.erase(it);
                break;
            }
        res.deallocate(s, p, bytes);
    }
    // use fills the block with v and sums it on s; few blocks of threads,
    // so that two streams' kernels can run side by side.
    void use(mr::stream_ref s, int* x, size_t bytes, int v) {
        const size_t n = bytes / sizeof(int);
        fill<<<2, 256, 0, s.get()>>>(x, n, v);
        sum<<<2, 256, 0, s.get()>>>(x, n, sums + want.size());
        want.push_back((unsigned long long)v * n);
    }
};

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

// Usage: pool_resource [ROUNDS] [STREAMS] (8 rounds and 2 streams by
// default; 3 streams add phase 5).
int main(int argc, char** argv) {
    const int rounds = arg(argc, argv, 1, 8, 64);
    const bool third = arg(argc, argv, 2, 2, 3) == 3;
    const size_t region = 128 * MiB, chunk = 16 * MiB;
    // Phase 5's pool takes its chunks from the region's last 48 MiB but
    // 16, phase 6's from the last 16, phase 7's from the 16 before those.
    const size_t region5 = third ? 48 * MiB : 0, region6 = third ? 16 * MiB : 0, region7 = third ? 16 * MiB : 0;
    cudaStream_t s[2], c = nullptr;
    for (auto& st : s) CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    if (third) CHECK(cudaStreamCreateWithFlags(&c, cudaStreamNonBlocking));
    const int nsums = 2 * rounds + 8 + (third ? 7 + 4 + 3 + 2 : 0);
    unsigned long long* sums = nullptr;
    CHECK(cudaMalloc(&sums, nsums * sizeof(unsigned long long)));
    // Cleared in s[0]'s order (a cudaMemset runs on the legacy stream,
    // which non-blocking streams never wait for): the wait below covers it.
    CHECK(cudaMemsetAsync(sums, 0, nsums * sizeof(unsigned long long), s[0]));
    mr::async_resource device;
    void* base = device.allocate(s[0], region);
    CHECK(cudaStreamSynchronize(s[0]));   // the region and the sums are ready for both streams
    chunk_source up(base, region - region5 - region7);
    chunk_source up7(static_cast<char*>(base) + region - region5 - region7, region7);
    chunk_source up5(static_cast<char*>(base) + region - region5, region5 - region6);
    chunk_source up6(static_cast<char*>(base) + region - region6, region6);
    int chunks[4];
    std::vector<unsigned long long> want;   // each sum as it should be
    {
        pool_resource pool(up, chunk);
        std::unique_ptr<pool_resource> pool5, pool6, pool7;   // phases 5 to 7's, made only with a third stream
        watch w{up, pool, {}, 0, 0, 0, 0, sums, {}};

        // 1. Side by side, the streams taking turns at asking first; the
        // second block is 100 bytes short of 4 MiB.
        for (int r = 0; r < rounds; r++) {
            const int first = r % 2;
            int* x[2];
            x[first] = w.take(s[first], 4 * MiB - 100 * first, "round");
            x[1 - first] = w.take(s[1 - first], 4 * MiB - 100 * (1 - first), "round");
            for (int k = 0; k < 2; k++) w.use(s[k], x[k], 4 * MiB - 100 * k, r + 1 + k);
            for (int k = 0; k < 2; k++) w.give(s[k], x[k], 4 * MiB - 100 * k);
        }
        chunks[0] = up.taken();

        // 2. Four blocks on stream 0, given back out of order, then one
        // block of all four's size.
        int* b[4];
        for (int k = 0; k < 4; k++) b[k] = w.take(s[0], 4 * MiB, "four 4 MiB blocks");
        for (int k = 0; k < 4; k++) w.use(s[0], b[k], 4 * MiB, 10 + k);
        for (int k : {0, 2, 1, 3}) w.give(s[0], b[k], 4 * MiB);
        int* y = w.take(s[0], 16 * MiB, "16 MiB after four 4 MiB blocks");
        w.use(s[0], y, 16 * MiB, 20);
        w.give(s[0], y, 16 * MiB);
        chunks[1] = up.taken();

        // 3. The 16 MiB on stream 1, then 4 MiB beside it; both given back
        // on stream 0 once it has waited for stream 1's work.
        y = w.take(s[1], 16 * MiB, "16 MiB on the other stream");
        int* z = w.take(s[1], 4 * MiB, "4 MiB beside 16 MiB");
        w.use(s[1], y, 16 * MiB, 21);
        w.use(s[1], z, 4 * MiB, 22);
        cudaEvent_t done;
        CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
        CHECK(cudaEventRecord(done, s[1]));
        CHECK(cudaStreamWaitEvent(s[0], done, 0));
        CHECK(cudaEventDestroy(done));
        w.give(s[0], y, 16 * MiB);
        w.give(s[0], z, 4 * MiB);
        chunks[2] = up.taken();

        // 4. More than a chunk.
        int* big = w.take(s[0], 20 * MiB, "20 MiB");
        w.use(s[0], big, 20 * MiB, 23);
        w.give(s[0], big, 20 * MiB);
        chunks[3] = up.taken();

        // 5. Three streams on a pool of their own: A is s[0], B s[1], C c.
        int seen5[4] = {0, 0, 0, 0};   // handed out, misaligned, outside, overlapping
        if (third) {
            pool5 = std::make_unique<pool_resource>(up5, 8 * MiB);
            watch w5{up5, *pool5, {}, 0, 0, 0, 0, sums, w.want};
            int* b1 = w5.take(s[1], 8 * MiB, "5. 8 MiB on B");
            int* c1 = w5.take(c, 4 * MiB, "5. 4 MiB on C");
            int* a1 = w5.take(s[0], 4 * MiB, "5. 4 MiB on A");
            w5.use(s[1], b1, 8 * MiB, 31);
            w5.use(c, c1, 4 * MiB, 32);
            w5.use(s[0], a1, 4 * MiB, 33);
            w5.give(s[1], b1, 8 * MiB);
            w5.give(c, c1, 4 * MiB);
            int* a2 = w5.take(s[0], 8 * MiB, "5. 8 MiB on A after B's and C's frees");
            int* a3 = w5.take(s[0], 4 * MiB, "5. 4 MiB on A after its wait for B");
            w5.use(s[0], a2, 8 * MiB, 34);
            w5.use(s[0], a3, 4 * MiB, 35);
            for (int* p : {a1, a3}) w5.give(s[0], p, 4 * MiB);
            w5.give(s[0], a2, 8 * MiB);
            int* b2 = w5.take(s[1], 8 * MiB, "5. 8 MiB on B after A's frees");
            int* c2 = w5.take(c, 4 * MiB, "5. 4 MiB on C after A's frees and B's take");
            w5.use(s[1], b2, 8 * MiB, 36);
            w5.use(c, c2, 4 * MiB, 37);
            w5.give(s[1], b2, 8 * MiB);
            w5.give(c, c2, 4 * MiB);
            // C's work is over once A's is: the program's waits below are
            // for A and B.
            cudaEvent_t cDone;
            CHECK(cudaEventCreateWithFlags(&cDone, cudaEventDisableTiming));
            CHECK(cudaEventRecord(cDone, c));
            CHECK(cudaStreamWaitEvent(s[0], cDone, 0));
            CHECK(cudaEventDestroy(cDone));
            w.want = w5.want;
            seen5[0] = w5.handed;
            seen5[1] = w5.misaligned;
            seen5[2] = w5.outside;
            seen5[3] = w5.overlapping;
        }

        // 6. Two neighbours freed one after the other on A, then taken
        // as one block by B.
        bool side6 = false, joined6 = false;
        if (third) {
            pool6 = std::make_unique<pool_resource>(up6, 8 * MiB);
            watch w6{up6, *pool6, {}, 0, 0, 0, 0, sums, w.want};
            int* x1 = w6.take(s[0], 4 * MiB, "6. 4 MiB on A");
            int* x2 = w6.take(s[0], 4 * MiB, "6. another 4 MiB on A");
            int* lo = std::min(x1, x2);
            int* hi = std::max(x1, x2);
            side6 = reinterpret_cast<char*>(hi) == reinterpret_cast<char*>(lo) + 4 * MiB;
            w6.use(s[0], lo, 4 * MiB, 41);
            w6.give(s[0], lo, 4 * MiB);
            w6.use(s[0], hi, 4 * MiB, 42);   // after the lower block's free
            w6.give(s[0], hi, 4 * MiB);
            int* j = w6.take(s[1], 8 * MiB, "6. 8 MiB on B after A's two frees");
            joined6 = j == lo;
            w6.use(s[1], j, 4 * MiB, 43);
            w6.use(s[1], reinterpret_cast<int*>(reinterpret_cast<char*>(j) + 4 * MiB), 4 * MiB, 44);
            w6.give(s[1], j, 8 * MiB);
            w.want = w6.want;
        }

        // 7. A block freed on C, cut by A, its rest taken by B.
        bool rest7 = false;
        if (third) {
            pool7 = std::make_unique<pool_resource>(up7, 8 * MiB);
            watch w7{up7, *pool7, {}, 0, 0, 0, 0, sums, w.want};
            int* c7 = w7.take(c, 8 * MiB, "7. 8 MiB on C");
            w7.use(c, c7, 8 * MiB, 51);
            w7.give(c, c7, 8 * MiB);
            int* a7 = w7.take(s[0], 4 * MiB, "7. 4 MiB on A from C's block");
            int* b7 = w7.take(s[1], 4 * MiB, "7. 4 MiB on B after A's take");
            rest7 = reinterpret_cast<char*>(std::max(a7, b7)) == reinterpret_cast<char*>(std::min(a7, b7)) + 4 * MiB &&
                    std::min(a7, b7) == c7;
            w7.use(s[0], a7, 4 * MiB, 52);
            w7.use(s[1], b7, 4 * MiB, 53);
            w7.give(s[0], a7, 4 * MiB);
            w7.give(s[1], b7, 4 * MiB);

            // 8. A block B took, used on A after A waited for B, given back
            // on A; then B takes 4 MiB again.
            int* b8 = w7.take(s[1], 4 * MiB, "8. 4 MiB on B");
            cudaEvent_t bTook;
            CHECK(cudaEventCreateWithFlags(&bTook, cudaEventDisableTiming));
            CHECK(cudaEventRecord(bTook, s[1]));
            CHECK(cudaStreamWaitEvent(s[0], bTook, 0));
            CHECK(cudaEventDestroy(bTook));
            w7.use(s[0], b8, 4 * MiB, 54);
            w7.give(s[0], b8, 4 * MiB);
            int* b9 = w7.take(s[1], 4 * MiB, "8. 4 MiB on B after A's free of B's block");
            w7.use(s[1], b9, 4 * MiB, 55);
            w7.give(s[1], b9, 4 * MiB);
            // C's work is over once A's is, as in phase 5.
            cudaEvent_t cDone;
            CHECK(cudaEventCreateWithFlags(&cDone, cudaEventDisableTiming));
            CHECK(cudaEventRecord(cDone, c));
            CHECK(cudaStreamWaitEvent(s[0], cDone, 0));
            CHECK(cudaEventDestroy(cDone));
            w.want = w7.want;
        }

        printf("1. %d rounds side by side on 2 streams: %d chunk(s) taken\n", rounds, chunks[0]);
        printf("2. four 4 MiB blocks given back out of order, then 16 MiB: %d chunk(s) taken\n", chunks[1]);
        printf("3. 16 MiB on the other stream, then 4 MiB beside it: %d chunk(s) taken\n", chunks[2]);
        printf("4. 20 MiB, more than a chunk: %d chunk(s) taken\n", chunks[3]);
        printf("blocks: %d handed out, %d misaligned, %d not inside one chunk, %d overlapping a block in use\n",
               w.handed, w.misaligned, w.outside, w.overlapping);
        if (third)
            printf("5. three streams: %d blocks handed out, %d misaligned, %d not inside one chunk, %d overlapping a block in use\n",
                   seen5[0], seen5[1], seen5[2], seen5[3]);
        if (third)
            printf("6. two 4 MiB blocks given back one after the other on A, then 8 MiB on B: side by side %s, B took them joined %s\n",
                   side6 ? "yes" : "no", joined6 ? "yes" : "no");
        if (third)
            printf("7. 8 MiB given back on C, then 4 MiB on A and 4 MiB on B: both cut from C's block %s\n", rest7 ? "yes" : "no");
        want = w.want;
        for (auto& st : s) CHECK(cudaStreamSynchronize(st));
    }   // the pools give their chunks back here
    printf("upstream: %d chunks taken, %d given back whole, %d other deallocations\n", up.taken(), up.returned(), up.bad());
    if (third) printf("5. the second pool's upstream: %d chunk(s) taken, %d given back whole, %d other deallocation(s)\n", up5.taken(), up5.returned(), up5.bad());
    device.deallocate(s[0], base, region);
    CHECK(cudaDeviceSynchronize());

    std::vector<unsigned long long> got(nsums);
    CHECK(cudaMemcpy(got.data(), sums, nsums * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    int right = 0;
    for (size_t i = 0; i < want.size(); i++) right += got[i] == want[i];
    printf("sums: %d of %d correct\n", right, nsums);
    CHECK(cudaFree(sums));
    for (auto& st : s) CHECK(cudaStreamDestroy(st));
    if (third) CHECK(cudaStreamDestroy(c));
    return 0;
}
