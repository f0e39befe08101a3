// Calls of the CUDA runtime, answered by fakecuda.cc and fakegraph.cc,
// that make the mistakes of record version 8: polling for a stream and an
// event, a race on an arena from cudaMalloc (cleared by cudaMemset on the
// legacy stream, used by a non-blocking stream) and on a sub-range of it,
// a graph launched again while another stream still uses its allocation,
// a setting on a pool nothing comes from, and results brought to the host
// before a wait covered the stream that wrote them; and two mappings
// undone by one cuMemUnmap (correct: bytes, not calls); mappings past the
// end of their reservation (two reservations side by side are one). Each
// mistake has a correct twin beside it that must not count.
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>

extern "C" void fakeBusy(const void* h, int n);
extern "C" cudaError_t fakeGraphWithAlloc(cudaGraph_t* g, void** dptr, size_t n, int withFree);
extern "C" int cuMemMap(unsigned long long p, size_t n, size_t off, unsigned long long h, unsigned long long f);
extern "C" int cuMemUnmap(unsigned long long p, size_t n);
extern "C" int cuMemAddressReserve(unsigned long long* p, size_t n, size_t align, unsigned long long addr, unsigned long long f);
extern "C" int cuMemAddressFree(unsigned long long p, size_t n);

static void kernel() {}

static int launch(void* a, cudaStream_t s) {
    void* b = (void*)0x10;             // not memory: never a use
    void* args[2] = {&a, &b};
    return cudaLaunchKernel((const void*)kernel, dim3(1), dim3(1), args, 0, s);
}

#define WANT(cond) do { if (!(cond)) { printf("line %d: %s\n", __LINE__, #cond); return 1; } } while (0)

static char hostBuf[3][1 << 13];

int main() {
    cudaStream_t s1 = (cudaStream_t)0x100, s2 = (cudaStream_t)0x200, nb;
    WANT(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking) == 0);

    // Polls: 3 queries of s1 and 2 of e after a "not ready"; each loop
    // ends in a host wait. A lone query that answers at once is no poll.
    fakeBusy(s1, 3);
    while (cudaStreamQuery(s1) == cudaErrorNotReady) {}
    cudaEvent_t e, ev;
    WANT(cudaEventCreate(&e) == 0 && cudaEventCreate(&ev) == 0);
    WANT(cudaEventRecord(e, s2) == 0);
    fakeBusy(e, 2);
    while (cudaEventQuery(e) != cudaSuccess) {}
    WANT(cudaStreamQuery(s2) == cudaSuccess);
    fakeBusy(s2, 1);                   // asked again after more work was queued: no poll
    WANT(cudaStreamQuery(s2) == cudaErrorNotReady);
    WANT(cudaEventRecord(ev, s2) == 0);
    WANT(cudaStreamQuery(s2) == cudaSuccess);

    // An arena from cudaMalloc, cleared on the legacy stream.
    char* arena;
    WANT(cudaMalloc((void**)&arena, 1 << 16) == 0);
    WANT(cudaMemset(arena, 0, 1 << 16) == 0);
    launch(arena + 4096, nb);          // race 1: nb is not ordered after the legacy stream
    launch(arena + 8192, s2);          // a blocking stream is
    WANT(cudaMemsetAsync(arena + 16384, 0, 4096, s2) == 0);
    launch(arena + 16384 + 256, nb);   // race 2: inside the bytes s2 clears
    WANT(cudaEventRecord(ev, s2) == 0 && cudaStreamWaitEvent(nb, ev, 0) == 0);
    WANT(cudaMemcpyAsync(hostBuf[0], arena + 32768, 256, cudaMemcpyDeviceToHost, s2) == 0);
    WANT(cudaMemcpyAsync(hostBuf[1], arena + 32768, 256, cudaMemcpyDeviceToHost, nb) == 0);  // two reads: no race
    launch(arena + 40960, s2);
    launch(arena + 40960, nb);         // two kernels given one input of cudaMalloc: may both read, no race
    char* counter;                     // cleared on s2, then added to by kernels of s2 and nb
    WANT(cudaMalloc((void**)&counter, 4) == 0);
    WANT(cudaMemsetAsync(counter, 0, 4, s2) == 0);
    WANT(cudaEventRecord(ev, s2) == 0 && cudaStreamWaitEvent(nb, ev, 0) == 0);
    launch(counter, s2);
    launch(counter, nb);               // after the clearing; beside s2's kernel: no race
    WANT(cudaDeviceSynchronize() == 0);

    // A graph whose allocation is freed at its next launch.
    cudaGraph_t g;
    cudaGraphExec_t ge;
    void* d;
    WANT(fakeGraphWithAlloc(&g, &d, 12288, 0) == 0);
    WANT(cudaGraphInstantiateWithFlags(&ge, g, cudaGraphInstantiateFlagAutoFreeOnLaunch) == 0);
    WANT(cudaGraphLaunch(ge, s1) == 0);
    WANT(cudaEventRecord(ev, s1) == 0 && cudaStreamWaitEvent(s2, ev, 0) == 0);
    launch(d, s2);
    WANT(cudaGraphLaunch(ge, s1) == 0);  // race: s2 may still use d
    WANT(cudaEventRecord(ev, s1) == 0 && cudaStreamWaitEvent(s2, ev, 0) == 0);
    launch(d, s2);
    WANT(cudaEventRecord(ev, s2) == 0 && cudaStreamWaitEvent(s1, ev, 0) == 0);
    WANT(cudaGraphLaunch(ge, s1) == 0);  // ordered after s2's use
    WANT(cudaDeviceSynchronize() == 0);

    // Pools: p1's setting is for nothing; p2 and p3 (the device's pool
    // once set) give allocations.
    cudaMemPool_t p1, p2, p3;
    cudaMemPoolProps props = {};
    uint64_t keep = 1 << 20;
    void *x, *y;
    WANT(cudaMemPoolCreate(&p1, &props) == 0 && cudaMemPoolCreate(&p2, &props) == 0 && cudaMemPoolCreate(&p3, &props) == 0);
    WANT(cudaMemPoolSetAttribute(p1, cudaMemPoolAttrReleaseThreshold, &keep) == 0);
    WANT(cudaMemPoolSetAttribute(p2, cudaMemPoolAttrReleaseThreshold, &keep) == 0);
    WANT(cudaMemPoolSetAttribute(p2, cudaMemPoolAttrReleaseThreshold, &keep) == 0);
    WANT(cudaMallocFromPoolAsync(&x, 2048, p2, s1) == 0);
    WANT(cudaMemPoolSetAttribute(p3, cudaMemPoolAttrReleaseThreshold, &keep) == 0);
    WANT(cudaDeviceSetMemPool(0, p3) == 0);
    WANT(cudaMallocAsync(&y, 2048, s1) == 0);

    // Two mappings side by side, undone by one cuMemUnmap.
    const unsigned long long va = 0x7f0000000000ULL;
    WANT(cuMemMap(va, 2 << 20, 0, 1, 0) == 0 && cuMemMap(va + (2 << 20), 2 << 20, 0, 2, 0) == 0);
    WANT(cuMemUnmap(va, 4 << 20) == 0);  // s1's allocations not waited for: unwaited
    WANT(cudaDeviceSynchronize() == 0);
    WANT(cuMemMap(va, 2 << 20, 0, 3, 0) == 0);
    WANT(cuMemUnmap(va, 2 << 20) == 0);  // after a wait for every stream

    // Mappings in reservations: inside one, across two side by side (one
    // range: not counted), past the second's end (counted), and past the
    // first's once its neighbour is freed (counted). The mappings above
    // start in no reservation: not judged.
    const unsigned long long ra = 0x7f1000000000ULL;
    unsigned long long r1 = 0, r2 = 0;
    WANT(cuMemAddressReserve(&r1, 8 << 20, 0, ra, 0) == 0 && r1 == ra);
    WANT(cuMemAddressReserve(&r2, 4 << 20, 0, ra + (8 << 20), 0) == 0 && r2 == ra + (8 << 20));
    WANT(cuMemMap(ra, 4 << 20, 0, 4, 0) == 0);
    WANT(cuMemMap(ra + (6 << 20), 4 << 20, 0, 5, 0) == 0);
    WANT(cuMemMap(ra + (10 << 20), 4 << 20, 0, 6, 0) == 0);  // past: 1
    WANT(cuMemUnmap(ra, 14 << 20) == 0);
    WANT(cuMemAddressFree(r2, 4 << 20) == 0);
    WANT(cuMemMap(ra + (6 << 20), 4 << 20, 0, 7, 0) == 0);  // past: 2
    WANT(cuMemUnmap(ra + (6 << 20), 4 << 20) == 0);

    // Results: a host copy after a non-blocking stream's kernel, and an
    // async copy to the host that only the other stream's wait follows.
    char *out, *out2;
    WANT(cudaMalloc((void**)&out, 8192) == 0 && cudaMalloc((void**)&out2, 4096) == 0);
    launch(out, nb);
    WANT(cudaMemcpy(hostBuf[2], out, 8192, cudaMemcpyDeviceToHost) == 0);  // unwaited 1 (and race 3)
    launch(out2, nb);
    WANT(cudaMemcpyAsync(hostBuf[0], out2, 4096, cudaMemcpyDeviceToHost, nb) == 0);
    WANT(cudaStreamSynchronize(s2) == 0);  // unwaited 2, at exit: nb was not waited for
    printf("done\n");
    return 0;
}
