// A probe of record version 10 on a GPU, run with
//   LESSONS_STATS_FAIL=cudaMallocAsync:2,cuMemMap:1
// by the record command (checker/testdata/timing/record):
//   nvcc -arch=native -cudart shared -o probe probe.cu -lcuda
//   LESSONS_STATS_FAIL=cudaMallocAsync:2,cuMemMap:1 rec liballocstats.so probe.bin ./probe
// 1. Three cudaMallocAsync: the second fails without being made (it
//    prints 2, out of memory), the others are made and freed.
// 2. A VMM chunk whose first map fails: the handle and the reservation
//    are given back (no leak, vmm_failed_calls 1).
// 3. A kernel that writes through a null pointer: the synchronisation
//    after it returns the fault (700), counted in device_faults, last.
// Expected: injected_failures=2 failed_allocs=1 vmm_failed_calls=1
// device_faults>=1 leaked_allocs=0.
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void poke(int* p) { *p = 1; }

int main() {
    cuInit(0);
    cudaSetDevice(0);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    void* p[3] = {nullptr, nullptr, nullptr};
    int r[3];
    for (int i = 0; i < 3; i++) r[i] = cudaMallocAsync(&p[i], 1 << 20, s);
    for (int i = 0; i < 3; i++)
        if (r[i] == cudaSuccess) cudaFreeAsync(p[i], s);
    cudaStreamSynchronize(s);
    printf("cudaMallocAsync returned %d %d %d\n", r[0], r[1], r[2]);

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t g = 0;
    cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    CUmemGenericAllocationHandle h;
    CUdeviceptr base = 0;
    int created = cuMemCreate(&h, g, &prop, 0), reserved = cuMemAddressReserve(&base, g, g, 0, 0);
    int mapped = cuMemMap(base, g, 0, h, 0);
    if (mapped == CUDA_SUCCESS) cuMemUnmap(base, g);
    if (created == CUDA_SUCCESS) cuMemRelease(h);
    if (reserved == CUDA_SUCCESS) cuMemAddressFree(base, g);
    printf("cuMemCreate %d, cuMemAddressReserve %d, cuMemMap %d\n", created, reserved, mapped);

    poke<<<1, 1, 0, s>>>(nullptr);
    printf("after the fault: %d\n", (int)cudaStreamSynchronize(s));
    printf("expected: injected_failures=2 failed_allocs=1 vmm_failed_calls=1 device_faults>=1 leaked_allocs=0\n");
    return 0;
}
