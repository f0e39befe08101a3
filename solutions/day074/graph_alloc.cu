// Allocation inside a CUDA graph: two graphs captured from streams.
// step forks s onto s2, and each branch allocates a scratch buffer, uses it
// and frees it within the graph; produce allocates a result that outlives
// each launch, read by the stream after it, and is freed before the next
// launch by the instantiation's auto-free flag; its kernel's factor is
// changed between launches in the instantiated graph itself. At the end
// the graphs' memory goes back to the driver.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <unistd.h>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void ones(int* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 1;
}

// What each launch of scale was given, in the order the launches ran:
// one thread of each adds its out and its k. The harness reads it after
// the loop, to say what factor each launch of produce ran with.
const unsigned int kScaledMax = 4096;
struct Scaled { const int* out; int k; };
struct ScaleLog { unsigned int count; Scaled at[kScaledMax]; };
__device__ ScaleLog scaled;

// out[i] = k * in[i]
__global__ void scale(const int* in, int* out, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) {
        unsigned int j = atomicAdd(&scaled.count, 1u);
        if (j < kScaledMax) scaled.at[j] = Scaled{out, k};
    }
    if (i < n) out[i] = k * in[i];
}

// Prints whether produce's k-th launch scaled by k (TODO 3), from what
// scale recorded: the launches that wrote into produce's allocation (the
// address its allocation node gives out, the same at every launch), in
// the order they ran. The totals cannot tell: factors given in another
// order add up to the same.
static void produce_factors(cudaGraph_t g, const ScaleLog& log, int launches) {
    const void* out = nullptr;
    size_t count = 0;
    cudaGraphGetNodes(g, nullptr, &count);
    std::vector<cudaGraphNode_t> nodes(count);
    if (count) cudaGraphGetNodes(g, nodes.data(), &count);
    for (cudaGraphNode_t a : nodes) {
        cudaGraphNodeType t;
        cudaMemAllocNodeParams ap = {};
        if (cudaGraphNodeGetType(a, &t) == cudaSuccess && t == cudaGraphNodeTypeMemAlloc && cudaGraphMemAllocNodeGetParams(a, &ap) == cudaSuccess) out = ap.dptr;
    }
    int seen = 0;
    for (unsigned int j = 0; j < log.count && j < kScaledMax; j++) {
        if (log.at[j].out != out) continue;
        if (log.at[j].k != ++seen) {
            printf("produce's launches: launch %d scaled by %d, not by its number\n", seen, log.at[j].k);
            return;
        }
    }
    if (seen == launches) printf("produce's launches: each scaled by its number\n");
    else printf("produce's launches: %d seen, for %d launches\n", seen, launches);
}

// Adds x into *total; each thread a strided share.
__global__ void sum(const int* x, int n, unsigned long long* total) {
    unsigned long long acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i];
    atomicAdd(total, acc);
}

// Keeps one thread busy for about `cycles` clock cycles: the harness keeps s
// busy with it, so that what TODO 4 queues on s is still pending when the
// host reaches the trim unless something waits for it.
__global__ void busy(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
}

// s starts with a nap of 50 ms (a host function: CUDA runs it on a thread
// of its own, in s's order), so that ones and the memset run 50 ms late:
// work queued on another stream that is not ordered after s runs first.
static void nap(void*) { usleep(50000); }

// The graph-memory attributes are 64-bit (cuuint64_t), whatever size_t
// is; a read that fails stops the program rather than printing 0.
static unsigned long long graph_mem(int device, cudaGraphMemAttributeType a) {
    unsigned long long v = 0;
    if (cudaError_t e = cudaDeviceGetGraphMemAttribute(device, a, &v)) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); }
    return v;
}

// The dependencies of a graph node (CUDA 13 added edge data to the call).
static std::vector<cudaGraphNode_t> deps(cudaGraphNode_t node) {
    size_t k = 0;
#if CUDART_VERSION >= 13000
    cudaGraphNodeGetDependencies(node, nullptr, nullptr, &k);
    std::vector<cudaGraphNode_t> d(k);
    if (k) cudaGraphNodeGetDependencies(node, d.data(), nullptr, &k);
#else
    cudaGraphNodeGetDependencies(node, nullptr, &k);
    std::vector<cudaGraphNode_t> d(k);
    if (k) cudaGraphNodeGetDependencies(node, d.data(), &k);
#endif
    return d;
}

// Whether a comes before b in the graph (a is b or one of its ancestors).
static bool before(cudaGraphNode_t a, cudaGraphNode_t b) {
    if (a == b) return true;
    for (cudaGraphNode_t d : deps(b)) if (before(a, d)) return true;
    return false;
}

// The nodes on the longest chain of dependencies that ends at node.
static int chain(cudaGraphNode_t node) {
    int longest = 0;
    for (cudaGraphNode_t d : deps(node)) { int c = chain(d); if (c > longest) longest = c; }
    return longest + 1;
}

// The buffer a kernel node of this file writes or reads through.
static void* kernel_buffer(cudaGraphNode_t node) {
    cudaKernelNodeParams p = {};
    if (cudaGraphKernelNodeGetParams(node, &p) != cudaSuccess) return nullptr;
    if (p.func == (void*)scale) return *(void**)p.kernelParams[1];
    if (p.func == (void*)sum) return *(void**)p.kernelParams[0];
    return nullptr;
}

// Prints what a graph allocates and frees, its longest chain, its
// kernels that use a buffer without coming before the buffer's free node,
// and its kernels that come after the allocation of a buffer they do not
// use (a branch hung from the other branch's allocation: the two do not
// run side by side, though the chain may be no longer than a design whose
// scratch is freed on s after the join).
static void describe(const char* name, cudaGraph_t g) {
    size_t count = 0;
    cudaGraphGetNodes(g, nullptr, &count);
    std::vector<cudaGraphNode_t> nodes(count);
    if (count) cudaGraphGetNodes(g, nodes.data(), &count);
    int allocs = 0, frees = 0, longest = 0, unordered = 0, foreign = 0;
    for (cudaGraphNode_t k : nodes) {
        cudaGraphNodeType kt;
        cudaGraphNodeGetType(k, &kt);
        if (kt != cudaGraphNodeTypeKernel || kernel_buffer(k) == nullptr) continue;   // scale and sum: the buffer known
        void* used = kernel_buffer(k);
        for (cudaGraphNode_t a : nodes) {
            cudaGraphNodeType at;
            cudaGraphNodeGetType(a, &at);
            cudaMemAllocNodeParams ap = {};
            if (at != cudaGraphNodeTypeMemAlloc || cudaGraphMemAllocNodeGetParams(a, &ap) != cudaSuccess) continue;
            if (ap.dptr != used && before(a, k)) { foreign++; break; }
        }
    }
    for (cudaGraphNode_t f : nodes) {
        cudaGraphNodeType t;
        cudaGraphNodeGetType(f, &t);
        allocs += t == cudaGraphNodeTypeMemAlloc;
        int c = chain(f);
        if (c > longest) longest = c;
        if (t != cudaGraphNodeTypeMemFree) continue;
        frees++;
        void* freed = nullptr;
        cudaGraphMemFreeNodeGetParams(f, &freed);
        for (cudaGraphNode_t k : nodes) {
            cudaGraphNodeType kt;
            cudaGraphNodeGetType(k, &kt);
            if (kt == cudaGraphNodeTypeKernel && kernel_buffer(k) == freed && !before(k, f)) unordered++;
        }
    }
    printf("%s graph: %d allocation nodes, %d free nodes, longest chain %d nodes, %d kernels not before their buffer's free, %d kernels after another buffer's allocation\n",
           name, allocs, frees, longest, unordered, foreign);
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

// Usage: graph_alloc [LAUNCHES] [MIB] (10 launches of 16 MiB by default).
int main(int argc, char** argv) {
    const int device = 0, launches = arg(argc, argv, 1, 10, 1000), mib = arg(argc, argv, 2, 16, 256);
    const int n = mib * (1 << 20) / (int)sizeof(int), blocks = (n + 255) / 256;
    const size_t bytes = (size_t)n * sizeof(int);
    CHECK(cudaSetDevice(device));
    cudaStream_t s, s2;   // s2: step's second branch
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    int* in = nullptr;
    unsigned long long* totals = nullptr;   // [0]: step's, [1]: produce's
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&totals, 2 * sizeof(unsigned long long)));
    CHECK(cudaLaunchHostFunc(s, nap, nullptr));   // in and totals are ready only after it
    ones<<<blocks, 256, 0, s>>>(in, n);
    CHECK(cudaMemsetAsync(totals, 0, 2 * sizeof(unsigned long long), s));

    cudaGraph_t step_graph = nullptr, produce_graph = nullptr;
    cudaGraphExec_t step = nullptr, produce = nullptr;
    int* out = nullptr;   // produce's result: the same address at every launch
    cudaGraphNode_t scale_node = nullptr;   // produce's kernel
    cudaKernelNodeParams scale_params = {};
    int *a = nullptr, *b = nullptr;   // step's scratch buffers, one a branch
    // TODO 1: capture step from s, forked onto s2 with the events fork and
    // join: on each branch allocate a scratch buffer of `bytes`, scale `in`
    // into it (by 2 on s, by 3 on s2), sum it into totals[0] and free it;
    // then instantiate step. The two branches must not depend on each other.
    // BEGIN SOLUTION
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaEventRecord(fork, s));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    CHECK(cudaMallocAsync(&a, bytes, s));
    CHECK(cudaMallocAsync(&b, bytes, s2));
    scale<<<blocks, 256, 0, s>>>(in, a, n, 2);
    scale<<<blocks, 256, 0, s2>>>(in, b, n, 3);
    sum<<<256, 256, 0, s>>>(a, n, totals);
    sum<<<256, 256, 0, s2>>>(b, n, totals);
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaFreeAsync(b, s2));
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s, join, 0));
    CHECK(cudaStreamEndCapture(s, &step_graph));
    CHECK(cudaGraphInstantiateWithFlags(&step, step_graph, 0));
    // STUB
    // END SOLUTION
    describe("step", step_graph);
    // TODO 2: capture produce from s: allocate `out` (`bytes`) and scale
    // `in` into it by 1, without freeing it; instantiate it so that each
    // launch frees what the launch before allocated (or free `out` on s
    // yourself after each sum, in TODO 3). Then find produce's kernel node
    // in produce_graph: keep it in scale_node, its parameters in scale_params.
    // BEGIN SOLUTION
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMallocAsync(&out, bytes, s));
    scale<<<blocks, 256, 0, s>>>(in, out, n, 1);
    CHECK(cudaStreamEndCapture(s, &produce_graph));
    CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, cudaGraphInstantiateFlagAutoFreeOnLaunch));
    cudaGraphNode_t nodes[8];
    size_t count = 8;
    CHECK(cudaGraphGetNodes(produce_graph, nodes, &count));
    for (size_t j = 0; j < count; j++) {
        cudaGraphNodeType t;
        CHECK(cudaGraphNodeGetType(nodes[j], &t));
        if (t == cudaGraphNodeTypeKernel) scale_node = nodes[j];
    }
    CHECK(cudaGraphKernelNodeGetParams(scale_node, &scale_params));
    // STUB
    // END SOLUTION
    describe("produce", produce_graph);
    // TODO 3: launch each graph `launches` times on s, without instantiating
    // again: produce's k-th launch (from 1) scales `in` by k (change its
    // kernel's factor in the instantiated graph); after each launch of
    // produce, sum `out` into totals[1] on s (the sum kernel above).
    // BEGIN SOLUTION
    for (int k = 1; k <= launches; k++) {
        CHECK(cudaGraphLaunch(step, s));
        void* args[] = {&in, &out, (void*)&n, &k};
        scale_params.kernelParams = args;
        CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &scale_params));
        CHECK(cudaGraphLaunch(produce, s));
        sum<<<256, 256, 0, s>>>(out, n, totals + 1);
    }
    // STUB
    // END SOLUTION
    CHECK(cudaGetLastError());
    unsigned long long got[2] = {0, 0};
    CHECK(cudaMemcpyAsync(got, totals, sizeof got, cudaMemcpyDeviceToHost, s));
    static ScaleLog log = {};   // what scale recorded (the harness's)
    void* log_at = nullptr;
    CHECK(cudaGetSymbolAddress(&log_at, scaled));
    CHECK(cudaMemcpyAsync(&log, log_at, sizeof log, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("step total %llu (expected %llu)\n", got[0], 5ull * n * launches);
    printf("produce total %llu (expected %llu)\n", got[1], (unsigned long long)n * launches * (launches + 1) / 2);
    produce_factors(produce_graph, log, launches);
    printf("graph memory: used high %llu MiB, reserved %llu MiB\n",
           graph_mem(device, cudaGraphMemAttrUsedMemHigh) >> 20, graph_mem(device, cudaGraphMemAttrReservedMemCurrent) >> 20);
    busy<<<1, 1, 0, s>>>(50000000);   // tens of milliseconds
    // TODO 4: give the graphs' memory back to the driver: the last launch's
    // `out` is still allocated, and the executable graphs still exist.
    // BEGIN SOLUTION
    CHECK(cudaFreeAsync(out, s));
    CHECK(cudaGraphExecDestroy(step));
    CHECK(cudaGraphExecDestroy(produce));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaDeviceGraphMemTrim(device));
    // END SOLUTION
    printf("after the trim: graph memory reserved %llu MiB, used %llu MiB\n",
           graph_mem(device, cudaGraphMemAttrReservedMemCurrent) >> 20, graph_mem(device, cudaGraphMemAttrUsedMemCurrent) >> 20);
    CHECK(cudaGraphDestroy(step_graph));
    CHECK(cudaGraphDestroy(produce_graph));
    CHECK(cudaFree(in));
    CHECK(cudaFree(totals));
    CHECK(cudaEventDestroy(fork));
    CHECK(cudaEventDestroy(join));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaStreamDestroy(s));
    return 0;
}
