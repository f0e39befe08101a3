// expert4's probe (issue 41 expert review, 2026-11-29): what the driver
// does where the references are silent. One mode a process:
//   cross_map    one cuMemMap across two reservations side by side
//   cross_unmap  one cuMemUnmap across two mappings (one range; two ranges)
//   unmap_waits  cuMemUnmap while a kernel still writes the range
//   heap_limit   cudaDeviceSetLimit(cudaLimitMallocHeapSize) read back
//   graph_overlap two 64 MiB graphs, launched in turn vs left to overlap
//   pool_release a new pool (threshold 0): reserved after free + sync
// Each prints "LABEL value" lines.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <cuda.h>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    printf("FAIL %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)
static const char* cuname(CUresult r) { const char* s = nullptr; cuGetErrorName(r, &s); return s ? s : "?"; }
#define CU(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { printf("FAIL %s: %s\n", #call, cuname(r_)); return 1; } } while (0)

using clk = std::chrono::steady_clock;
static double ms(clk::time_point a, clk::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

__device__ unsigned long long now_ns() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__global__ void fill(int* p, size_t n, int v) { size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; if (i < n) p[i] = v; }
__global__ void late_write(int* p, unsigned long long ns) { unsigned long long t0 = now_ns(); while (now_ns() - t0 < ns) {} p[0] = 42; }

static CUmemAllocationProp prop() {
    CUmemAllocationProp p = {};
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = 0;
    return p;
}
static CUmemAccessDesc rw() {
    CUmemAccessDesc d = {};
    d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    d.location.id = 0;
    d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return d;
}

// Two ranges of 2 units side by side (retrying the hint a few times).
static bool pair(size_t g, CUdeviceptr* a, CUdeviceptr* b) {
    for (int t = 0; t < 8; t++) {
        if (cuMemAddressReserve(a, 2 * g, 2 * g, 0, 0) != CUDA_SUCCESS) return false;
        if (cuMemAddressReserve(b, 2 * g, 0, *a + 2 * g, 0) == CUDA_SUCCESS) {
            if (*b == *a + 2 * g) return true;
            cuMemAddressFree(*b, 2 * g);
        }
        cuMemAddressFree(*a, 2 * g);
    }
    return false;
}

static int cross_map(size_t g) {
    CUdeviceptr a, b;
    if (!pair(g, &a, &b)) { printf("cross_map.adjacent no\n"); return 0; }
    printf("cross_map.adjacent yes\n");
    CUmemAllocationProp p = prop();
    CUmemGenericAllocationHandle h;
    CU(cuMemCreate(&h, 2 * g, &p, 0));
    CUresult m = cuMemMap(a + g, 2 * g, 0, h, 0);   // last unit of a, first of b
    printf("cross_map.map %s\n", cuname(m));
    if (m == CUDA_SUCCESS) {
        CUmemAccessDesc d = rw();
        CUresult s = cuMemSetAccess(a + g, 2 * g, &d, 1);
        printf("cross_map.set_access %s\n", cuname(s));
        if (s == CUDA_SUCCESS) {
            size_t n = 2 * g / sizeof(int);
            fill<<<(unsigned)((n + 255) / 256), 256>>>((int*)(a + g), n, 7);
            cudaError_t e = cudaDeviceSynchronize();
            int last = 0;
            if (e == cudaSuccess) e = cudaMemcpy(&last, (int*)(a + g) + n - 1, sizeof last, cudaMemcpyDeviceToHost);
            printf("cross_map.kernel %s (last int %d)\n", cudaGetErrorString(e), last);
        }
        printf("cross_map.unmap_first_range_part %s\n", cuname(cuMemUnmap(a + g, g)));
        printf("cross_map.unmap_whole %s\n", cuname(cuMemUnmap(a + g, 2 * g)));
    }
    printf("cross_map.release %s\n", cuname(cuMemRelease(h)));
    printf("cross_map.free_a %s\n", cuname(cuMemAddressFree(a, 2 * g)));
    printf("cross_map.free_b %s\n", cuname(cuMemAddressFree(b, 2 * g)));
    return 0;
}

static int cross_unmap(size_t g) {
    CUmemAllocationProp p = prop();
    CUmemAccessDesc d = rw();
    // Two mappings side by side in one range, one unmap for both.
    CUdeviceptr r;
    CU(cuMemAddressReserve(&r, 2 * g, 0, 0, 0));
    CUmemGenericAllocationHandle h1, h2;
    CU(cuMemCreate(&h1, g, &p, 0));
    CU(cuMemCreate(&h2, g, &p, 0));
    CU(cuMemMap(r, g, 0, h1, 0));
    CU(cuMemMap(r + g, g, 0, h2, 0));
    printf("cross_unmap.set_access_both %s\n", cuname(cuMemSetAccess(r, 2 * g, &d, 1)));
    printf("cross_unmap.one_range_two_maps %s\n", cuname(cuMemUnmap(r, 2 * g)));
    // Whatever is still mapped, unmap it one by one before freeing.
    cuMemUnmap(r, g); cuMemUnmap(r + g, g);
    printf("cross_unmap.one_range_free %s\n", cuname(cuMemAddressFree(r, 2 * g)));
    // One mapping in each of two ranges side by side, one unmap for both.
    CUdeviceptr a, b;
    if (!pair(g, &a, &b)) { printf("cross_unmap.adjacent no\n"); return 0; }
    CU(cuMemMap(a + g, g, 0, h1, 0));
    CU(cuMemMap(b, g, 0, h2, 0));
    printf("cross_unmap.set_access_across %s\n", cuname(cuMemSetAccess(a + g, 2 * g, &d, 1)));
    printf("cross_unmap.two_ranges_two_maps %s\n", cuname(cuMemUnmap(a + g, 2 * g)));
    cuMemUnmap(a + g, g); cuMemUnmap(b, g);
    printf("cross_unmap.free_a %s\n", cuname(cuMemAddressFree(a, 2 * g)));
    printf("cross_unmap.free_b %s\n", cuname(cuMemAddressFree(b, 2 * g)));
    CU(cuMemRelease(h1));
    CU(cuMemRelease(h2));
    return 0;
}

// A kernel that writes the range's first int after 200 ms, then the unmap.
// If cuMemUnmap waits, it takes about 200 ms and the kernel ends well; if
// not, it returns at once and the kernel's write faults (so this mode runs
// alone in its process, last).
static int unmap_waits(size_t g, bool other_stream) {
    CUmemAllocationProp p = prop();
    CUmemAccessDesc d = rw();
    CUdeviceptr r;
    CU(cuMemAddressReserve(&r, g, 0, 0, 0));
    CUmemGenericAllocationHandle h;
    CU(cuMemCreate(&h, g, &p, 0));
    CU(cuMemMap(r, g, 0, h, 0));
    CU(cuMemSetAccess(r, g, &d, 1));
    cudaStream_t s = 0;
    if (other_stream) CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    late_write<<<1, 1, 0, s>>>((int*)r, 0);   // load the kernel
    CK(cudaDeviceSynchronize());
    late_write<<<1, 1, 0, s>>>((int*)r, 200ull * 1000 * 1000);
    auto t0 = clk::now();
    CUresult u = cuMemUnmap(r, g);
    auto t1 = clk::now();
    printf("unmap_waits.%s.unmap %s in %.1f ms\n", other_stream ? "nonblocking" : "legacy", cuname(u), ms(t0, t1));
    cudaError_t e = cudaDeviceSynchronize();
    printf("unmap_waits.%s.kernel_after %s\n", other_stream ? "nonblocking" : "legacy", cudaGetErrorString(e));
    cuMemRelease(h);
    cuMemAddressFree(r, g);
    return 0;
}

static int heap_limit() {
    const size_t KiB = 1024;
    const size_t asks[] = {8 * 1024 * KiB + 1, 2573 * KiB + 512, 5146 * KiB + 4096 * KiB, 9242 * KiB + 700,
                           9216 * KiB + 1, 9216 * KiB - 1, 3 * 1024 * KiB - 1, 100 * KiB};
    for (size_t a : asks) {
        CK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, a));
        size_t got = 0;
        CK(cudaDeviceGetLimit(&got, cudaLimitMallocHeapSize));
        printf("heap_limit.asked %zu got %zu (%s)\n", a, got, got == a ? "same" : got > a ? "more" : "LESS");
    }
    return 0;
}

static int graph64(cudaStream_t s, cudaGraphExec_t* e) {
    const size_t n = (64u << 20) / sizeof(int);
    cudaGraph_t g; int* p = nullptr;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CK(cudaMallocAsync(&p, n * sizeof(int), s));
    fill<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(p, n, 1);
    late_write<<<1, 1, 0, s>>>(p, 20ull * 1000 * 1000);   // hold it 20 ms
    CK(cudaFreeAsync(p, s));
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiateWithFlags(e, g, 0));
    CK(cudaGraphDestroy(g));
    return 0;
}

static int graph_overlap() {
    cudaStream_t s1, s2;
    CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaGraphExec_t e1, e2;
    if (graph64(s1, &e1) || graph64(s1, &e2)) return 1;
    unsigned long long z = 0, r = 0;
    // In turn on one stream.
    CK(cudaGraphLaunch(e1, s1)); CK(cudaGraphLaunch(e2, s1)); CK(cudaStreamSynchronize(s1));
    CK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &r));
    printf("graph_overlap.one_stream_reserved_high_MiB %llu\n", r >> 20);
    // Left to overlap on two streams.
    CK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &z));
    auto t0 = clk::now();
    CK(cudaGraphLaunch(e1, s1)); CK(cudaGraphLaunch(e2, s2));
    CK(cudaStreamSynchronize(s1)); CK(cudaStreamSynchronize(s2));
    auto t1 = clk::now();
    CK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &r));
    printf("graph_overlap.two_streams_reserved_high_MiB %llu (both done in %.1f ms; 20 ms each)\n", r >> 20, ms(t0, t1));
    CK(cudaGraphExecDestroy(e1)); CK(cudaGraphExecDestroy(e2));
    CK(cudaStreamDestroy(s1)); CK(cudaStreamDestroy(s2));
    CK(cudaDeviceGraphMemTrim(0));
    return 0;
}

// Day 69: a pool as cudaMemPoolCreate makes it (threshold 0) after four
// 32 MiB buffers are freed and the stream synchronised: what it reserves.
static int pool_release() {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t pool; CK(cudaMemPoolCreate(&pool, &props));
    cudaStream_t s; CK(cudaStreamCreate(&s));
    uint64_t thr = 1, r = 0;
    CK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr));
    void* p[4];
    for (auto& q : p) CK(cudaMallocFromPoolAsync(&q, 32u << 20, pool, s));
    for (auto& q : p) CK(cudaFreeAsync(q, s));
    CK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &r));
    printf("pool_release.threshold %llu; reserved before the sync %llu MiB\n", (unsigned long long)thr, (unsigned long long)(r >> 20));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &r));
    printf("pool_release.after_sync_MiB %llu\n", (unsigned long long)(r >> 20));
    CK(cudaStreamDestroy(s)); CK(cudaMemPoolDestroy(pool));
    return 0;
}

int main(int argc, char** argv) {
    const char* m = argc > 1 ? argv[1] : "";
    CU(cuInit(0));
    CK(cudaSetDevice(0));
    CUmemAllocationProp p = prop();
    size_t g = 0;
    CU(cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    if (!strcmp(m, "cross_map")) return cross_map(g);
    if (!strcmp(m, "cross_unmap")) return cross_unmap(g);
    if (!strcmp(m, "unmap_waits_legacy")) return unmap_waits(g, false);
    if (!strcmp(m, "unmap_waits_nonblocking")) return unmap_waits(g, true);
    if (!strcmp(m, "heap_limit")) return heap_limit();
    if (!strcmp(m, "graph_overlap")) return graph_overlap();
    if (!strcmp(m, "pool_release")) return pool_release();
    fprintf(stderr, "usage: probe cross_map|cross_unmap|unmap_waits_legacy|unmap_waits_nonblocking|heap_limit|graph_overlap|pool_release\n");
    return 2;
}
