// What the driver accepts in VMM teardown, with no cudaFree(0) (Day 72):
// the context comes from cudaSetDevice; a handle released while mapped;
// cuMemAddressFree of a mapped range; the cost of a map; the
// granularities. Build: nvcc -arch=native -o vmm_facts vmm_facts.cu -lcuda
#include <chrono>
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>

static const char* name(CUresult r) {
    const char* s = nullptr;
    cuGetErrorName(r, &s);
    return s ? s : "?";
}
#define CU(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
    printf("%s: %s\n", #call, name(r_)); return 1; } } while (0)

__global__ void touch(int* x, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) x[i] = 7;
}

int main() {
    CU(cuInit(0));
    if (cudaSetDevice(0) != cudaSuccess) return 1;
    CUcontext ctx = nullptr;
    CU(cuCtxGetCurrent(&ctx));
    printf("a current context after cuInit and cudaSetDevice alone: %s\n", ctx ? "yes" : "no");
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t g = 0, rec = 0;
    CU(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CU(cuMemGetAllocationGranularity(&rec, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    printf("granularity: minimum %zu, recommended %zu\n", g, rec);
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;

    CUdeviceptr va;
    CU(cuMemAddressReserve(&va, 4 * g, g, 0, 0));
    CUmemGenericAllocationHandle h;
    CU(cuMemCreate(&h, g, &prop, 0));
    CU(cuMemMap(va, g, 0, h, 0));
    CU(cuMemSetAccess(va, g, &acc, 1));
    printf("cuMemRelease while mapped: %s\n", name(cuMemRelease(h)));
    touch<<<(unsigned)(g / 4 / 256), 256>>>((int*)va, g / 4);
    int got = 0;
    cudaError_t e = cudaMemcpy(&got, (void*)va, sizeof got, cudaMemcpyDeviceToHost);
    printf("the mapping still works after the release: %s (read %d)\n", e == cudaSuccess && got == 7 ? "yes" : "no", got);
    printf("cuMemAddressFree of the still-mapped range: %s\n", name(cuMemAddressFree(va, 4 * g)));
    CU(cuMemUnmap(va, g));
    printf("cuMemAddressFree after cuMemUnmap: %s\n", name(cuMemAddressFree(va, 4 * g)));

    // The cost of adding memory: create, map and open one unit, then take
    // it down, 100 times.
    for (size_t unit : {g, 16 * g}) {
        CU(cuMemAddressReserve(&va, unit, g, 0, 0));
        double mapUs = 0, downUs = 0;
        for (int i = 0; i < 100; i++) {
            auto t0 = std::chrono::steady_clock::now();
            CU(cuMemCreate(&h, unit, &prop, 0));
            CU(cuMemMap(va, unit, 0, h, 0));
            CU(cuMemSetAccess(va, unit, &acc, 1));
            auto t1 = std::chrono::steady_clock::now();
            CU(cuMemUnmap(va, unit));
            CU(cuMemRelease(h));
            auto t2 = std::chrono::steady_clock::now();
            mapUs += std::chrono::duration<double, std::micro>(t1 - t0).count();
            downUs += std::chrono::duration<double, std::micro>(t2 - t1).count();
        }
        printf("%zu MiB: create+map+set access %.1f us, unmap+release %.1f us (mean of 100)\n", unit >> 20, mapUs / 100, downUs / 100);
        CU(cuMemAddressFree(va, unit));
    }
    return 0;
}
