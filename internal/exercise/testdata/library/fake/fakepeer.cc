// Two stand-in devices for the statistics library's figures of several
// devices (record version 9): the current device, streams made on it,
// pools with a location, a device's current pool, access to a pool from
// another device, allocations from a pool on another device than the
// stream's, and copies between the two. Memory comes from fakecuda.cc's
// arena (fakeTake, fakeGive); nothing here knows which device it is on:
// the library learns it from the calls. fakecuda.cc answers the calls it
// has too (cudaStreamCreateWithFlags, cudaMemPoolCreate,
// cudaDeviceSetMemPool, cudaMallocFromPoolAsync, cudaMemcpy).
#include <cuda_runtime_api.h>
#include <stdint.h>

extern "C" cudaError_t fakeTake(void** p, size_t n);

namespace {
int current = 0;
uintptr_t nextHandle = 0x9000;
cudaMemPool_t defaults[2] = {(cudaMemPool_t)0x8000, (cudaMemPool_t)0x8100};
}  // namespace

extern "C" {
cudaError_t cudaSetDevice(int d) {
    if (d < 0 || d > 1) return cudaErrorInvalidDevice;
    current = d;
    return cudaSuccess;
}
cudaError_t cudaStreamCreate(cudaStream_t* s) { *s = (cudaStream_t)(nextHandle += 16); return cudaSuccess; }
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int d) {
    if (d < 0 || d > 1) return cudaErrorInvalidDevice;
    *pool = defaults[d];
    return cudaSuccess;
}
cudaError_t cudaMemPoolSetAccess(cudaMemPool_t, const cudaMemAccessDesc*, size_t) { return cudaSuccess; }
cudaError_t cudaDeviceEnablePeerAccess(int, unsigned int) { return cudaSuccess; }
cudaError_t cudaMemcpyPeerAsync(void*, int, const void*, int, size_t, cudaStream_t) { return cudaSuccess; }
}
