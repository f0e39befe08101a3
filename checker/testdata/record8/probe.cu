// A probe of record version 8 on a GPU: each mistake of a kind made once
// (or a known number of times) beside its correct twin. Run by the record
// command (checker/testdata/timing/record):
//   nvcc -arch=native -cudart shared -o probe probe.cu -lcuda
//   rec liballocstats.so probe.bin ./probe
// and compare its line of statistics with the expectations it prints.
// 1. A poll: cudaStreamQuery in a loop while a kernel spins, and
//    cudaEventQuery likewise (host_polls > 0, poll_waits 2).
// 2. An arena from cudaMalloc cleared by cudaMemset on the legacy stream,
//    then used by a kernel on a non-blocking stream (unordered_uses 1); a
//    blocking stream's kernel beside it is ordered.
// 3. A graph with an allocation node, instantiated to free on launch,
//    launched again while another stream may still read its memory
//    (unordered_frees 1, graph_relaunch_frees 2: one racy, one ordered).
// 4. A release threshold set on a pool nothing is allocated from, the
//    allocations coming from the device's pool (pool_settings_unused 1).
// 5. Two mappings undone by one cuMemUnmap (vmm_unmap_bytes = vmm_map_bytes).
// 6. Results: a cudaMemcpy of a buffer a non-blocking stream's kernel
//    wrote (unwaited_results 1), and an async copy to pinned memory on a
//    non-blocking stream that the program never waits for before exit
//    (unwaited_results 2 in all).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda.h>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
#define DCHECK(call) do { CUresult e_ = (call); if (e_ != CUDA_SUCCESS) { \
    fprintf(stderr, "%s:%d: driver error %d\n", __FILE__, __LINE__, (int)e_); exit(1); } } while (0)

__global__ void spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
}

__global__ void fill(int* x, int n, int v) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) x[i] = v;
}

int main() {
    cudaStream_t s1, s2, nb;
    CHECK(cudaStreamCreate(&s1));
    CHECK(cudaStreamCreate(&s2));
    CHECK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));

    // 1. Polls.
    spin<<<1, 1, 0, s1>>>(20000000);
    long polls = 0;
    while (cudaStreamQuery(s1) == cudaErrorNotReady) polls++;
    cudaEvent_t e;
    CHECK(cudaEventCreate(&e));
    spin<<<1, 1, 0, s2>>>(20000000);
    CHECK(cudaEventRecord(e, s2));
    while (cudaEventQuery(e) == cudaErrorNotReady) polls++;

    // 2. An arena cleared on the legacy stream.
    const int n = 1 << 20;
    int* arena;
    CHECK(cudaMalloc(&arena, 4 * n * sizeof(int)));
    CHECK(cudaMemset(arena, 0, 4 * n * sizeof(int)));
    fill<<<64, 256, 0, nb>>>(arena + n, n, 1);      // race: nb does not wait for the legacy stream
    fill<<<64, 256, 0, s2>>>(arena + 2 * n, n, 2);  // ordered: s2 is a blocking stream
    CHECK(cudaDeviceSynchronize());

    // 3. A graph that frees its allocation at its next launch.
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaMemAllocNodeParams ap = {};
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.poolProps.location.id = 0;
    ap.bytesize = n * sizeof(int);
    cudaGraphNode_t allocNode;
    CHECK(cudaGraphAddMemAllocNode(&allocNode, g, nullptr, 0, &ap));
    int* d = (int*)ap.dptr;
    cudaGraphExec_t ge;
    CHECK(cudaGraphInstantiateWithFlags(&ge, g, cudaGraphInstantiateFlagAutoFreeOnLaunch));
    cudaEvent_t ev;
    CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    CHECK(cudaGraphLaunch(ge, s1));
    CHECK(cudaEventRecord(ev, s1));
    CHECK(cudaStreamWaitEvent(nb, ev, 0));
    fill<<<64, 256, 0, nb>>>(d, n, 3);
    CHECK(cudaGraphLaunch(ge, s1));                 // race: nb may still write d
    CHECK(cudaEventRecord(ev, s1));
    CHECK(cudaStreamWaitEvent(nb, ev, 0));
    fill<<<64, 256, 0, nb>>>(d, n, 4);
    CHECK(cudaEventRecord(ev, nb));
    CHECK(cudaStreamWaitEvent(s1, ev, 0));
    CHECK(cudaGraphLaunch(ge, s1));                 // ordered after nb's use
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGraphExecDestroy(ge));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaDeviceGraphMemTrim(0));

    // 4. A setting on a pool nothing comes from.
    cudaMemPoolProps pp = {};
    pp.allocType = cudaMemAllocationTypePinned;
    pp.location.type = cudaMemLocationTypeDevice;
    pp.location.id = 0;
    cudaMemPool_t pool;
    CHECK(cudaMemPoolCreate(&pool, &pp));
    uint64_t keep = UINT64_MAX;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    int* a;
    CHECK(cudaMallocAsync(&a, n * sizeof(int), s1));
    fill<<<64, 256, 0, s1>>>(a, n, 5);
    CHECK(cudaFreeAsync(a, s1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaMemPoolDestroy(pool));

    // 5. Two mappings, one unmap.
    CUmemAllocationProp mp = {};
    mp.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    mp.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    mp.location.id = 0;
    size_t gran = 0;
    DCHECK(cuMemGetAllocationGranularity(&gran, &mp, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CUdeviceptr va;
    DCHECK(cuMemAddressReserve(&va, 2 * gran, 0, 0, 0));
    CUmemGenericAllocationHandle h[2];
    for (int i = 0; i < 2; i++) {
        DCHECK(cuMemCreate(&h[i], gran, &mp, 0));
        DCHECK(cuMemMap(va + i * gran, gran, 0, h[i], 0));
    }
    CUmemAccessDesc acc = {};
    acc.location = mp.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    DCHECK(cuMemSetAccess(va, 2 * gran, &acc, 1));
    DCHECK(cuMemUnmap(va, 2 * gran));
    for (int i = 0; i < 2; i++) DCHECK(cuMemRelease(h[i]));
    DCHECK(cuMemAddressFree(va, 2 * gran));

    // 6. Results read before their stream was waited for.
    int *out, *out2, *host;
    CHECK(cudaMalloc(&out, n * sizeof(int)));
    CHECK(cudaMalloc(&out2, n * sizeof(int)));
    CHECK(cudaMallocHost(&host, 2 * n * sizeof(int)));
    fill<<<64, 256, 0, nb>>>(out, n, 6);
    CHECK(cudaMemcpy(host, out, n * sizeof(int), cudaMemcpyDeviceToHost));  // nb not waited for
    fill<<<64, 256, 0, nb>>>(out2, n, 7);
    CHECK(cudaMemcpyAsync(host + n, out2, n * sizeof(int), cudaMemcpyDeviceToHost, nb));
    CHECK(cudaStreamSynchronize(s2));               // the other stream only
    printf("polled %s\n", polls > 0 ? "yes" : "no");
    printf("expected: host_polls>0 poll_waits=2 unordered_uses=2 unordered_frees=1 graph_relaunch_frees=2 "
           "pool_settings_unused=1 vmm_unmap_calls=1 vmm_map_calls=2 vmm_unmap_bytes=vmm_map_bytes unwaited_results=2 default_stream_ops=0\n");
    return 0;
}
