// What Day 70's pool-reuse rests on: a reset high-water mark starts from
// what the pool holds at that moment; a lower release threshold gives
// nothing back until a synchronisation, cudaMemPoolTrimTo at once; and
// four 32 MiB buffers reserve 128 MiB.
// Build: nvcc -arch=native -o pool_marks pool_marks.cu
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

static uint64_t attr(cudaMemPool_t pool, cudaMemPoolAttr a) {
    uint64_t v = 0;
    cudaMemPoolGetAttribute(pool, a, &v);
    return v;
}

int main() {
    const uint64_t MiB = 1 << 20;
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t pool;
    CHECK(cudaMemPoolCreate(&pool, &props));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    uint64_t big = 1ull << 40, zero = 0, keep = 32 * MiB;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &big));
    void* p[4];
    for (int i = 0; i < 4; i++) CHECK(cudaMallocFromPoolAsync(&p[i], 32 * MiB, pool, s));
    for (int i = 0; i < 4; i++) CHECK(cudaFreeAsync(p[i], s));
    CHECK(cudaStreamSynchronize(s));
    printf("4 buffers of 32 MiB: reserved %" PRIu64 " MiB\n", attr(pool, cudaMemPoolAttrReservedMemCurrent) / MiB);
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &zero));
    printf("ReservedMemHigh reset to 0 while 128 MiB are reserved reads %" PRIu64 " MiB\n",
           attr(pool, cudaMemPoolAttrReservedMemHigh) / MiB);
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    printf("threshold lowered to 32 MiB: reserved %" PRIu64 " MiB", attr(pool, cudaMemPoolAttrReservedMemCurrent) / MiB);
    CHECK(cudaStreamSynchronize(s));
    printf(", after a cudaStreamSynchronize %" PRIu64 " MiB\n", attr(pool, cudaMemPoolAttrReservedMemCurrent) / MiB);
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &big));
    for (int i = 0; i < 4; i++) CHECK(cudaMallocFromPoolAsync(&p[i], 32 * MiB, pool, s));
    for (int i = 0; i < 4; i++) CHECK(cudaFreeAsync(p[i], s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemPoolTrimTo(pool, keep));
    printf("held 128 MiB, cudaMemPoolTrimTo(32 MiB): reserved %" PRIu64 " MiB at once\n",
           attr(pool, cudaMemPoolAttrReservedMemCurrent) / MiB);
    CHECK(cudaMemPoolDestroy(pool));
    return 0;
}
