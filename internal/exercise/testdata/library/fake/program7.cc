// Calls of the CUDA runtime, answered by fakecuda.cc and fakegraph.cc,
// that hand out memory without a plain allocation: pitched allocations, a
// pointer imported from another process's pool, a graph's allocation
// node, and an allocation the library does not hook. Each lands on a block
// freed before; none of their uses is a use after free, but for the
// ranges that are freed again (by the program, or by a graph's free node).
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>

extern "C" cudaError_t fakeRawAlloc(void** p, size_t n);
extern "C" cudaError_t fakeGraphWithAlloc(cudaGraph_t* g, void** dptr, size_t n, int withFree);
extern "C" int fakeDriverLookup();
extern "C" int cuGetProcAddress_v2(const char* symbol, void** pfn, int v, unsigned long long flags, int* st);

static void kernel() {}

// launch passes a and q (a buffer live throughout): only a can be a use
// after free.
static void* q;
static int launch(void* a, cudaStream_t s) {
    void* args[2] = {&a, &q};
    return cudaLaunchKernel((const void*)kernel, dim3(1), dim3(1), args, 0, s);
}

#define WANT(cond) do { if (!(cond)) { printf("line %d: %s\n", __LINE__, #cond); return 1; } } while (0)

int main() {
    cudaStream_t s1 = (cudaStream_t)0x100, s2 = (cudaStream_t)0x200;
    WANT(cudaMalloc(&q, 1 << 16) == 0);
    void* a;
    WANT(cudaMallocAsync(&a, 4096, s1) == 0);
    WANT(cudaFreeAsync(a, s1) == 0);

    void* pitched;
    size_t pitch;
    WANT(cudaMallocPitch(&pitched, &pitch, 4000, 1) == 0 && pitched == a && pitch == 4096);
    launch(pitched, s1);
    WANT(cudaFree(pitched) == 0);

    cudaPitchedPtr pp;
    cudaExtent ext = {4000, 1, 1};
    WANT(cudaMalloc3D(&pp, ext) == 0 && pp.ptr == a);
    launch(pp.ptr, s1);
    WANT(cudaFree(pp.ptr) == 0);

    void* imp;
    cudaMemPoolPtrExportData data;
    WANT(cudaMemPoolImportPointer(&imp, nullptr, &data) == 0 && imp == a);
    launch(imp, s2);
    WANT(cudaFreeAsync(imp, s2) == 0);

    void* raw;                         // not hooked: the library learns of it at its free
    WANT(fakeRawAlloc(&raw, 8192) == 0);
    launch(raw, s1);
    WANT(cudaFree(raw) == 0);
    launch((char*)raw + 4096, s1);     // 1: freed

    cudaGraph_t g, g2;
    cudaGraphExec_t e, e2;
    void *d, *d2;
    WANT(fakeGraphWithAlloc(&g, &d, 4096, 0) == 0 && d == a);
    WANT(cudaGraphInstantiateWithFlags(&e, g, 0) == 0);
    WANT(cudaGraphLaunch(e, s1) == 0);
    launch(d, s1);
    WANT(cudaFreeAsync(d, s1) == 0);
    WANT(cudaGraphLaunch(e, s1) == 0);  // allocated again at the same address
    launch(d, s1);
    WANT(cudaFreeAsync(d, s1) == 0);

    WANT(fakeGraphWithAlloc(&g2, &d2, 16384, 1) == 0);
    WANT(cudaGraphInstantiateWithFlags(&e2, g2, 0) == 0);
    WANT(cudaGraphLaunch(e2, s1) == 0);
    launch(d2, s2);                    // 2: the graph freed it

    WANT(fakeDriverLookup() == 1);     // the driver's own look-up: the real function
    void* f = nullptr;
    WANT(cuGetProcAddress_v2("cuMemAlloc", &f, 12000, 0, nullptr) == 0 && f != nullptr);
    WANT(cudaFree(q) == 0);
    printf("done\n");
    return 0;
}
