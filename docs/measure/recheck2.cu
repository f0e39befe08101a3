// recheck2.cu: probes M1 to M4 of issue 41's second recheck
// (review/expert/RECHECK2.md, "Claims that need a GPU run"), written for
// that review (carry/expert3/probes.cu) and kept here so that
// `FIGURES_ONLY=recheck2 bash docs/measure/figures.sh` can run them.
// One mode per run: freewait_async, freewait_malloc (M3, one kind a
// process) | upload (M2) | fullpool (M4) | peercopy (M1, two GPUs;
// prints M1.skipped on one). Each prints
// "LABEL value" lines; figures.sh runs each five times.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); exit(1); } } while (0)

using clk = std::chrono::steady_clock;
static double ms(clk::time_point a, clk::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

__device__ unsigned long long now_ns() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__global__ void busy(int* x, unsigned long long ns) { unsigned long long t0 = now_ns(); while (now_ns() - t0 < ns) {} x[0] = 1; }
__global__ void fill(int* x, size_t n, int v) { size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; if (i < n) x[i] = v; }
__global__ void touch(int* x) { x[0] = 2; }

// M3: does cudaFree of cudaMallocAsync memory wait for the kernel using it?
// One kind a process (freewait_async, freewait_malloc): if the free does
// not wait, the memory is unmapped under the running kernel and its write
// faults, which spoils the context for anything after it. So the free's
// time is printed first, and the synchronisation's result is a figure
// too (M3.KIND.kernel_after_free ok, or the error), not a reason to stop.
static void freewait(bool async) {
    const char* kind = async ? "async" : "malloc";
    cudaStream_t s; CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int* w = nullptr; CHECK(cudaMalloc(&w, 256));
    busy<<<1, 1, 0, s>>>(w, 0);   // load the kernel
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(w));
    int* p = nullptr;
    if (async) CHECK(cudaMallocAsync(&p, 64 << 20, s)); else CHECK(cudaMalloc(&p, 64 << 20));
    CHECK(cudaStreamSynchronize(s));
    busy<<<1, 1, 0, s>>>(p, 100ull * 1000 * 1000);
    auto t0 = clk::now();
    cudaError_t freed = cudaFree(p);
    auto t1 = clk::now();
    printf("M3.%s.cudaFree_ms %.3f\n", kind, ms(t0, t1));
    printf("M3.%s.cudaFree %s\n", kind, cudaGetErrorString(freed));
    fflush(stdout);
    cudaError_t after = cudaStreamSynchronize(s);
    printf("M3.%s.kernel_after_free %s\n", kind, after == cudaSuccess ? "ok" : cudaGetErrorString(after));
    fflush(stdout);
    // After a fault the context is gone: nothing more to free or check.
    if (after == cudaSuccess) CHECK(cudaStreamDestroy(s));
}

// M2: graph memory mapped again when the graph changes streams; upload.
static void upload() {
    cudaStream_t s, s2;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    const size_t n = (64u << 20) / sizeof(int);
    cudaGraph_t g; int* p = nullptr;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMallocAsync(&p, n * sizeof(int), s));
    fill<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(p, n, 1);
    CHECK(cudaFreeAsync(p, s));
    CHECK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t e; CHECK(cudaGraphInstantiateWithFlags(&e, g, 0));
    CHECK(cudaGraphLaunch(e, s)); CHECK(cudaStreamSynchronize(s));   // warm-up: module loaded
    auto one = [&](cudaStream_t st) { auto t0 = clk::now(); CHECK(cudaGraphLaunch(e, st)); CHECK(cudaStreamSynchronize(st)); return ms(t0, clk::now()); };
    double steady = 0; for (int i = 0; i < 20; i++) steady += one(s);
    printf("M2.steady_same_stream_ms %.3f\n", steady / 20);
    CHECK(cudaDeviceGraphMemTrim(0));
    printf("M2.first_after_trim_ms %.3f\n", one(s));
    CHECK(cudaDeviceGraphMemTrim(0));
    CHECK(cudaGraphUpload(e, s)); CHECK(cudaStreamSynchronize(s));
    printf("M2.first_after_upload_same_stream_ms %.3f\n", one(s));
    CHECK(cudaDeviceGraphMemTrim(0));
    CHECK(cudaGraphUpload(e, s)); CHECK(cudaStreamSynchronize(s));
    printf("M2.first_after_upload_other_stream_ms %.3f\n", one(s2));
    double alt = 0; for (int i = 0; i < 20; i++) alt += one(i % 2 ? s2 : s);
    printf("M2.alternating_streams_ms %.3f\n", alt / 20);
    unsigned long long r = 0; CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &r));
    printf("M2.reserved_high_MiB %llu\n", r >> 20);
    CHECK(cudaGraphExecDestroy(e)); CHECK(cudaGraphDestroy(g));
    CHECK(cudaStreamDestroy(s)); CHECK(cudaStreamDestroy(s2));
    CHECK(cudaDeviceGraphMemTrim(0));
}

// M4: internal dependencies when the device, not maxSize, is full.
static void fullpool() {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t pool; CHECK(cudaMemPoolCreate(&pool, &props));
    cudaStream_t a, b;
    CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    int* w = nullptr; CHECK(cudaMalloc(&w, 256));
    busy<<<1, 1, 0, a>>>(w, 0); touch<<<1, 1, 0, b>>>(w);   // load the kernels before the fill
    CHECK(cudaStreamSynchronize(a)); CHECK(cudaStreamSynchronize(b));
    const size_t bytes = 32u << 20;
    int* pa = nullptr;
    CHECK(cudaMallocFromPoolAsync(&pa, bytes, pool, a));   // the pool's first chunk, made before the fill
    CHECK(cudaStreamSynchronize(a));
    // Fill the device with cudaMalloc until less than one block is left.
    std::vector<void*> fillers;
    for (size_t chunk = 1ull << 30; chunk >= (2u << 20); chunk /= 2) {
        void* f;
        while (cudaMalloc(&f, chunk) == cudaSuccess) fillers.push_back(f);
        (void)cudaGetLastError();
    }
    size_t freeb = 0, total = 0; CHECK(cudaMemGetInfo(&freeb, &total));
    printf("M4.free_after_fill_MiB %zu\n", freeb >> 20);
    busy<<<1, 1, 0, a>>>(pa, 50ull * 1000 * 1000);
    CHECK(cudaFreeAsync(pa, a));
    int* pb = nullptr;
    auto t0 = clk::now();
    cudaError_t got = cudaMallocFromPoolAsync(&pb, bytes, pool, b);
    if (got != cudaSuccess) {
        (void)cudaGetLastError();
        printf("M4.result failed:%s\n", cudaGetErrorString(got));
    } else {
        touch<<<1, 1, 0, b>>>(pb);
        CHECK(cudaStreamSynchronize(b));
        printf("M4.result %s\nM4.b_done_ms %.1f\n", pb == pa ? "same" : "new", ms(t0, clk::now()));
        CHECK(cudaFreeAsync(pb, b));
    }
    CHECK(cudaDeviceSynchronize());
    for (void* f : fillers) CHECK(cudaFree(f));
    CHECK(cudaFree(w));
    CHECK(cudaStreamDestroy(a)); CHECK(cudaStreamDestroy(b));
    CHECK(cudaMemPoolDestroy(pool));
}

// M1: a peer copy of pool memory, with and without access; cudaMemcpyAsync
// of pool memory with the other device current.
static void peercopy() {
    int n = 0; CHECK(cudaGetDeviceCount(&n));
    int can = 0; if (n >= 2) CHECK(cudaDeviceCanAccessPeer(&can, 0, 1));
    if (n < 2 || !can) { printf("M1.skipped %d GPU(s)\n", n); return; }
    const size_t bytes = 256u << 20;
    cudaStream_t s0, s1;
    CHECK(cudaSetDevice(1)); CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    int* src = nullptr; CHECK(cudaMallocAsync(&src, bytes, s1));
    fill<<<(unsigned)(bytes / 4 / 256), 256, 0, s1>>>(src, bytes / 4, 42);
    CHECK(cudaStreamSynchronize(s1));
    cudaMemPool_t pool1; CHECK(cudaDeviceGetDefaultMemPool(&pool1, 1));
    CHECK(cudaSetDevice(0)); CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    int* dst = nullptr; CHECK(cudaMalloc(&dst, bytes));
    cudaEvent_t t0, t1; CHECK(cudaEventCreate(&t0)); CHECK(cudaEventCreate(&t1));
    for (int access = 0; access < 2; access++) {
        if (access) {
            cudaMemAccessDesc d = {}; d.location = {cudaMemLocationTypeDevice, 0}; d.flags = cudaMemAccessFlagsProtReadWrite;
            CHECK(cudaMemPoolSetAccess(pool1, &d, 1));
        }
        CHECK(cudaMemcpyPeerAsync(dst, 0, src, 1, bytes, s0));   // warm
        float best = 1e30f;
        for (int i = 0; i < 5; i++) {
            CHECK(cudaEventRecord(t0, s0));
            CHECK(cudaMemcpyPeerAsync(dst, 0, src, 1, bytes, s0));
            CHECK(cudaEventRecord(t1, s0));
            CHECK(cudaEventSynchronize(t1));
            float m; CHECK(cudaEventElapsedTime(&m, t0, t1)); if (m < best) best = m;
        }
        int last = 0; CHECK(cudaMemcpy(&last, dst + bytes / 4 - 1, 4, cudaMemcpyDeviceToHost));
        printf("M1.peer_%s_GBps %.1f (last int %d)\n", access ? "access" : "noaccess", bytes / (best * 1e6), last);
    }
    CHECK(cudaMemset(dst, 0, bytes));
    CHECK(cudaSetDevice(1));   // the other device current, the stream s0's device 0
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s0);
    cudaError_t w = cudaStreamSynchronize(s0);
    int last = 0; cudaError_t r = cudaMemcpy(&last, dst + bytes / 4 - 1, 4, cudaMemcpyDeviceToHost);
    printf("M1.memcpyasync_wrong_device %s / %s / last int %d (%s)\n", cudaGetErrorString(e), cudaGetErrorString(w), last, cudaGetErrorString(r));
}

int main(int argc, char** argv) {
    const char* m = argc > 1 ? argv[1] : "";
    if (!strcmp(m, "freewait_async")) freewait(true);
    else if (!strcmp(m, "freewait_malloc")) freewait(false);
    else if (!strcmp(m, "upload")) upload();
    else if (!strcmp(m, "fullpool")) fullpool();
    else if (!strcmp(m, "peercopy")) peercopy();
    else { fprintf(stderr, "usage: recheck2 freewait_async|freewait_malloc|upload|fullpool|peercopy\n"); return 2; }
    return 0;
}
