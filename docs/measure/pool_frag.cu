// Fragmentation in the driver's own pool (Days 69 and 76), read from the
// pool's attributes: ReservedMemCurrent (what the pool holds from the
// driver) against UsedMemCurrent (what is handed out and not freed).
//  1. holes: a pool filled with 4 MiB blocks, every other one freed, then
//     16 MiB asked for on the same stream: free memory in pieces that do
//     not touch. Then cudaMemPoolTrimTo(pool, 0) with the holes still there.
//  1b. capped: the same holes in a pool of its own that may not grow past
//     128 MiB: is the 16 MiB served from the holes, or refused?
//  2. neighbours: the same, but four blocks side by side freed out of
//     order: can the pool serve 16 MiB from them without growing?
//  3. mixed sizes: 4000 requests of 1 KiB to 8 MiB, a random half freed,
//     reserved against used before and after a trim to 0.
//  4. a trim that comes before the host has seen the frees complete.
// The pool is the device's default pool, its release threshold set to the
// maximum so that no synchronisation gives memory back unasked.
// Build: nvcc -arch=sm_90 -o pool_frag pool_frag.cu
#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

static cudaMemPool_t pool;
static const uint64_t MiB = 1ull << 20;

static uint64_t attr(cudaMemPoolAttr a) {
    uint64_t v = 0;
    if (cudaMemPoolGetAttribute(pool, a, &v) != cudaSuccess) return ~0ull;
    return v;
}
static uint64_t reserved() { return attr(cudaMemPoolAttrReservedMemCurrent); }
static uint64_t used() { return attr(cudaMemPoolAttrUsedMemCurrent); }

__global__ void spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
}

// fill takes 4 MiB blocks until the pool holds less than 4 MiB it has not
// handed out (at least min blocks), and returns them sorted by address.
static int fill(std::vector<char*>& blocks, size_t min, cudaStream_t s) {
    blocks.clear();
    while (blocks.size() < 4096) {
        char* p = nullptr;
        CHECK(cudaMallocAsync(&p, 4 * MiB, s));
        blocks.push_back(p);
        if (blocks.size() >= min && reserved() - used() < 4 * MiB) break;
    }
    std::sort(blocks.begin(), blocks.end());
    return 0;
}

// empty frees what is left, waits, trims to 0.
static int empty(std::vector<char*>& blocks, cudaStream_t s) {
    for (char* p : blocks) if (p) CHECK(cudaFreeAsync(p, s));
    blocks.clear();
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemPoolTrimTo(pool, 0));
    return 0;
}

int main() {
    CHECK(cudaSetDevice(0));
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    uint64_t most = UINT64_MAX;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &most));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::vector<char*> b;

    // 1. Holes: every other block freed.
    if (fill(b, 32, s)) return 1;
    const uint64_t r0 = reserved();
    printf("holes: filled with %zu blocks of 4 MiB: reserved %" PRIu64 " MiB, used %" PRIu64 " MiB\n", b.size(), r0 / MiB, used() / MiB);
    for (size_t i = 0; i < b.size(); i += 2) { CHECK(cudaFreeAsync(b[i], s)); b[i] = nullptr; }
    CHECK(cudaStreamSynchronize(s));
    printf("holes: every other block freed: reserved %" PRIu64 " MiB, used %" PRIu64 " MiB, free in the pool %" PRIu64 " MiB\n",
           reserved() / MiB, used() / MiB, (reserved() - used()) / MiB);
    char* big = nullptr;
    CHECK(cudaMallocAsync(&big, 16 * MiB, s));
    printf("holes: 16 MiB asked for: reserved grew by %" PRId64 " MiB\n", ((int64_t)reserved() - (int64_t)r0) / (int64_t)MiB);
    CHECK(cudaFreeAsync(big, s));
    CHECK(cudaStreamSynchronize(s));
    const uint64_t before = reserved();
    CHECK(cudaMemPoolTrimTo(pool, 0));
    printf("holes: trimmed to 0 with the holes there: reserved %" PRIu64 " MiB (was %" PRIu64 "), used %" PRIu64 " MiB\n",
           reserved() / MiB, before / MiB, used() / MiB);
    if (empty(b, s)) return 1;
    printf("holes: everything freed and trimmed: reserved %" PRIu64 " MiB\n", reserved() / MiB);

#if CUDART_VERSION >= 12020
    // 1b. Holes in a pool that cannot grow (cudaMemPoolProps::maxSize, CUDA
    // 12.2 on): the 16 MiB must come from the holes or not at all.
    {
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = 0;
        props.maxSize = 128 * MiB;
        cudaMemPool_t capped;
        CHECK(cudaMemPoolCreate(&capped, &props));
        CHECK(cudaMemPoolSetAttribute(capped, cudaMemPoolAttrReleaseThreshold, &most));
        std::vector<char*> c;
        for (int i = 0; i < 1024; i++) {
            char* p = nullptr;
            if (cudaMallocFromPoolAsync(&p, 4 * MiB, capped, s) != cudaSuccess) break;
            c.push_back(p);
        }
        (void)cudaGetLastError();   // the refusal that ended the fill
        std::sort(c.begin(), c.end());
        for (size_t i = 0; i < c.size(); i += 2) { CHECK(cudaFreeAsync(c[i], s)); c[i] = nullptr; }
        CHECK(cudaStreamSynchronize(s));
        uint64_t cr = 0, cu = 0;
        CHECK(cudaMemPoolGetAttribute(capped, cudaMemPoolAttrReservedMemCurrent, &cr));
        CHECK(cudaMemPoolGetAttribute(capped, cudaMemPoolAttrUsedMemCurrent, &cu));
        char* b16 = nullptr;
        cudaError_t e16 = cudaMallocFromPoolAsync(&b16, 16 * MiB, capped, s);
        (void)cudaGetLastError();
        printf("capped: a pool of at most 128 MiB filled with %zu blocks of 4 MiB, every other freed (reserved %" PRIu64 " MiB, used %" PRIu64 " MiB): 16 MiB %s\n",
               c.size(), cr / MiB, cu / MiB, e16 == cudaSuccess ? "served" : cudaGetErrorString(e16));
        if (e16 == cudaSuccess) CHECK(cudaFreeAsync(b16, s));
        for (char* p : c) if (p) CHECK(cudaFreeAsync(p, s));
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaMemPoolDestroy(capped));
    }
#else
    printf("capped: not built (cudaMemPoolProps::maxSize needs CUDA 12.2)\n");
#endif

    // 2. Neighbours: four blocks side by side, freed out of order.
    if (fill(b, 32, s)) return 1;
    const uint64_t r1 = reserved();
    size_t at = b.size();
    for (size_t i = 0; i + 3 < b.size(); i++)
        if (b[i + 1] == b[i] + 4 * MiB && b[i + 2] == b[i] + 8 * MiB && b[i + 3] == b[i] + 12 * MiB) { at = i; break; }
    if (at == b.size()) {
        printf("neighbours: no four blocks side by side in %zu\n", b.size());
    } else {
        char* lowest = b[at];
        for (size_t k : {2, 0, 3, 1}) { CHECK(cudaFreeAsync(b[at + k], s)); b[at + k] = nullptr; }
        CHECK(cudaMallocAsync(&big, 16 * MiB, s));
        printf("neighbours: 16 MiB after four 4 MiB blocks side by side were freed out of order (no synchronisation): reserved grew by %" PRId64 " MiB, %s\n",
               ((int64_t)reserved() - (int64_t)r1) / (int64_t)MiB, big == lowest ? "at the lowest freed block's address" : "somewhere else");
        CHECK(cudaFreeAsync(big, s));
    }
    if (empty(b, s)) return 1;

    // 3. Mixed sizes, a random half freed.
    uint64_t x = 0x9E3779B97F4A7C15ull;
    auto rnd = [&x]() { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x; };
    std::vector<char*> m(4000);
    uint64_t asked = 0;
    for (auto& p : m) {
        size_t bytes = 1024ull << (rnd() % 14);   // 1 KiB to 8 MiB
        bytes += rnd() % bytes;                    // and up to twice that
        asked += bytes;
        CHECK(cudaMallocAsync(&p, bytes, s));
    }
    CHECK(cudaStreamSynchronize(s));
    printf("mixed: 4000 requests of 1 KiB to 16 MiB, %" PRIu64 " MiB asked for: reserved %" PRIu64 " MiB, used %" PRIu64 " MiB\n",
           asked / MiB, reserved() / MiB, used() / MiB);
    for (auto& p : m) if (rnd() % 2) { CHECK(cudaFreeAsync(p, s)); p = nullptr; }
    CHECK(cudaStreamSynchronize(s));
    const uint64_t r3 = reserved(), u3 = used();
    CHECK(cudaMemPoolTrimTo(pool, 0));
    printf("mixed: a random half freed: reserved %" PRIu64 " MiB, used %" PRIu64 " MiB (%.2f reserved per used); after trim to 0: reserved %" PRIu64 " MiB (%.2f)\n",
           r3 / MiB, u3 / MiB, (double)r3 / u3, reserved() / MiB, (double)reserved() / used());
    for (auto& p : m) if (p) CHECK(cudaFreeAsync(p, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemPoolTrimTo(pool, 0));

    // 4. A trim before the host has seen the frees complete.
    char* q = nullptr;
    CHECK(cudaMallocAsync(&q, 64 * MiB, s));
    CHECK(cudaStreamSynchronize(s));
    spin<<<1, 1, 0, s>>>(200000000);   // about 0.1 s
    CHECK(cudaFreeAsync(q, s));
    CHECK(cudaMemPoolTrimTo(pool, 0));
    const uint64_t early = reserved(), earlyUsed = used();
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemPoolTrimTo(pool, 0));
    printf("early trim: 64 MiB freed behind a running kernel, trimmed at once: reserved %" PRIu64 " MiB, used %" PRIu64 " MiB; after a synchronisation and a trim: reserved %" PRIu64 " MiB\n",
           early / MiB, earlyUsed / MiB, reserved() / MiB);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamDestroy(s));
    return 0;
}
