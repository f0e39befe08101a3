// expect: after the trim the pool should hold nothing
// The trim keeps 32 MiB: cudaMemPoolTrimTo's argument is what stays.
// A pool of our own, kept warm across synchronisations by its release
// threshold, then trimmed. The pool's attributes measure the reuse.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cinttypes>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

static uint64_t attr(cudaMemPool_t pool, cudaMemPoolAttr a) {
    uint64_t v = 0;
    cudaMemPoolGetAttribute(pool, a, &v);
    return v;
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

// Usage: pool_reuse [ROUNDS] (8 by default).
int main(int argc, char** argv) {
    const int device = 0, rounds = arg(argc, argv, 1, 8, 1000);
    const size_t bytes = 32u << 20;
    const uint64_t MiB = 1 << 20;
    CHECK(cudaSetDevice(device));
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool;
    CHECK(cudaMemPoolCreate(&pool, &props));
    // TODO 1: a new pool gives its memory back to the driver at every
    // synchronisation. Let it keep up to 64 MiB: set its release threshold.
    uint64_t threshold = 64 * MiB;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));

    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    int reused = 0;
    for (int r = 0; r < rounds; r++) {
        if (attr(pool, cudaMemPoolAttrReservedMemCurrent) >= bytes) reused++;
        void* p = nullptr;
        CHECK(cudaMallocFromPoolAsync(&p, bytes, pool, s));
        CHECK(cudaMemsetAsync(p, r, bytes, s));
        CHECK(cudaFreeAsync(p, s));
        CHECK(cudaStreamSynchronize(s));
    }
    printf("%d of %d rounds found %zu MiB already reserved\n", reused, rounds, bytes / MiB);
    printf("after the loop: reserved %" PRIu64 " MiB (high %" PRIu64 " MiB), used high %" PRIu64 " MiB\n",
           attr(pool, cudaMemPoolAttrReservedMemCurrent) / MiB, attr(pool, cudaMemPoolAttrReservedMemHigh) / MiB,
           attr(pool, cudaMemPoolAttrUsedMemHigh) / MiB);
    // TODO 2: the work is done: hand everything the pool keeps back to the
    // driver with cudaMemPoolTrimTo.
    CHECK(cudaMemPoolTrimTo(pool, 32 * MiB));
    printf("after the trim: reserved %" PRIu64 " MiB\n", attr(pool, cudaMemPoolAttrReservedMemCurrent) / MiB);
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaMemPoolDestroy(pool));
    return 0;
}
