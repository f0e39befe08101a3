// Graph memory (Day 74) under patterns that could leave it in pieces, read
// from the device's graph-memory attributes: UsedMemHigh (the most handed
// out at once) against ReservedMemHigh (the most the driver held for it).
//  across: two graphs, each allocating 64 MiB, using and freeing it,
//          launched one after the other;
//  chain:  one graph: 32 MiB allocated, used, freed, then another 32 MiB;
//  hole:   one graph: A and B of 32 MiB, A freed, then C of 64 MiB while
//          B is still in use: the 64 MiB does not fit in A's place.
// Each case starts with the graph memory trimmed and the highs reset.
// Build: nvcc -arch=sm_90 -o graph_frag graph_frag.cu
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

static const uint64_t MiB = 1ull << 20;

static uint64_t graph_mem(cudaGraphMemAttributeType a) {
    uint64_t v = 0;
    if (cudaDeviceGetGraphMemAttribute(0, a, &v) != cudaSuccess) return ~0ull;
    return v;
}

// touch writes one int every 64 KiB of p's bytes.
__global__ void touch(char* p, size_t bytes) {
    for (size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) * 65536; i < bytes; i += (size_t)gridDim.x * blockDim.x * 65536)
        *(int*)(p + i) = 1;
}

static void use(char* p, size_t bytes, cudaStream_t s) { touch<<<64, 256, 0, s>>>(p, bytes); }

static int reset() {
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaDeviceGraphMemTrim(0));
    uint64_t zero = 0;
    CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
    CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero));
    return 0;
}

static void report(const char* name) {
    printf("%s: used high %" PRIu64 " MiB, reserved high %" PRIu64 " MiB, reserved now %" PRIu64 " MiB\n", name,
           graph_mem(cudaGraphMemAttrUsedMemHigh) / MiB, graph_mem(cudaGraphMemAttrReservedMemHigh) / MiB,
           graph_mem(cudaGraphMemAttrReservedMemCurrent) / MiB);
}

int main() {
    CHECK(cudaSetDevice(0));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t g[2];
    cudaGraphExec_t x[2];

    // across
    if (reset()) return 1;
    for (int k = 0; k < 2; k++) {
        char* a = nullptr;
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        CHECK(cudaMallocAsync(&a, 64 * MiB, s));
        use(a, 64 * MiB, s);
        CHECK(cudaFreeAsync(a, s));
        CHECK(cudaStreamEndCapture(s, &g[k]));
        CHECK(cudaGraphInstantiateWithFlags(&x[k], g[k], 0));
    }
    CHECK(cudaGraphLaunch(x[0], s));
    CHECK(cudaGraphLaunch(x[1], s));
    CHECK(cudaStreamSynchronize(s));
    report("across: two graphs of 64 MiB each, launched one after the other");
    for (int k = 0; k < 2; k++) {
        CHECK(cudaGraphExecDestroy(x[k]));
        CHECK(cudaGraphDestroy(g[k]));
    }

    // chain
    if (reset()) return 1;
    {
        char *a = nullptr, *b = nullptr;
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        CHECK(cudaMallocAsync(&a, 32 * MiB, s));
        use(a, 32 * MiB, s);
        CHECK(cudaFreeAsync(a, s));
        CHECK(cudaMallocAsync(&b, 32 * MiB, s));
        use(b, 32 * MiB, s);
        CHECK(cudaFreeAsync(b, s));
        CHECK(cudaStreamEndCapture(s, &g[0]));
        CHECK(cudaGraphInstantiateWithFlags(&x[0], g[0], 0));
        CHECK(cudaGraphLaunch(x[0], s));
        CHECK(cudaStreamSynchronize(s));
        report("chain: one graph, 32 MiB freed before another 32 MiB");
        printf("chain: the second 32 MiB %s the first's address\n", a == b ? "got" : "did not get");
        CHECK(cudaGraphExecDestroy(x[0]));
        CHECK(cudaGraphDestroy(g[0]));
    }

    // hole
    if (reset()) return 1;
    {
        char *a = nullptr, *b = nullptr, *c = nullptr;
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        CHECK(cudaMallocAsync(&a, 32 * MiB, s));
        CHECK(cudaMallocAsync(&b, 32 * MiB, s));
        use(a, 32 * MiB, s);
        use(b, 32 * MiB, s);
        CHECK(cudaFreeAsync(a, s));
        CHECK(cudaMallocAsync(&c, 64 * MiB, s));
        use(c, 64 * MiB, s);
        use(b, 32 * MiB, s);
        CHECK(cudaFreeAsync(b, s));
        CHECK(cudaFreeAsync(c, s));
        CHECK(cudaStreamEndCapture(s, &g[0]));
        CHECK(cudaGraphInstantiateWithFlags(&x[0], g[0], 0));
        CHECK(cudaGraphLaunch(x[0], s));
        CHECK(cudaStreamSynchronize(s));
        report("hole: one graph, 64 MiB asked for after the first of two 32 MiB blocks was freed");
        CHECK(cudaGraphLaunch(x[0], s));
        CHECK(cudaStreamSynchronize(s));
        report("hole: the same graph launched again");
        CHECK(cudaDeviceGraphMemTrim(0));
        report("hole: trimmed, the graph still instantiated");
        CHECK(cudaGraphExecDestroy(x[0]));
        CHECK(cudaGraphDestroy(g[0]));
    }
    CHECK(cudaGetLastError());
    CHECK(cudaStreamDestroy(s));
    return 0;
}
