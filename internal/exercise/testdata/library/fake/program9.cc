// Calls of two devices, answered by fakepeer.cc, that the statistics
// library must place on their devices (record version 9): a pool made on
// each device and set as its current pool, device 1 given access to
// device 0's pool, blocks of device 0's pool allocated on device 1's
// stream, blocks of device 1's current pool, copies between the two;
// the bytes on each device, a launch and a copy on device 1's stream with
// device 0 current (record version 20).
#include <cuda_runtime_api.h>
#include <stdio.h>

int main() {
    cudaMemPool_t pools[2];
    cudaStream_t s[2];
    for (int d = 0; d < 2; d++) {
        cudaSetDevice(d);
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = d;
        if (cudaMemPoolCreate(&pools[d], &props) || cudaDeviceSetMemPool(d, pools[d])) return 1;
        if (cudaStreamCreateWithFlags(&s[d], cudaStreamNonBlocking)) return 1;
    }
    cudaMemAccessDesc access[2] = {};
    access[0].location = {cudaMemLocationTypeDevice, 0};   // the owner itself: no grant
    access[0].flags = cudaMemAccessFlagsProtReadWrite;
    access[1].location = {cudaMemLocationTypeDevice, 1};
    access[1].flags = cudaMemAccessFlagsProtReadWrite;
    if (cudaMemPoolSetAccess(pools[0], access, 2)) return 1;
    cudaDeviceEnablePeerAccess(0, 0);
    cudaMemPool_t dflt;
    cudaDeviceGetDefaultMemPool(&dflt, 0);
    void *a, *b, *c, *d;
    if (cudaMallocFromPoolAsync(&a, 4096, pools[0], s[1])) return 1;  // device 0's memory on device 1's stream
    if (cudaMallocFromPoolAsync(&b, 4096, dflt, s[1])) return 1;      // the same, from device 0's default pool
    if (cudaMallocAsync(&c, 4096, s[1])) return 1;                    // device 1's current pool: the program's
    cudaMemcpyPeerAsync(c, 1, a, 0, 4096, s[1]);                      // a peer copy
    cudaMemcpyAsync(b, c, 1024, cudaMemcpyDefault, s[1]);             // a peer copy by addresses
    cudaMemcpyAsync(a, b, 512, cudaMemcpyDefault, s[1]);              // both on device 0: no peer copy
    cudaSetDevice(0);
    if (cudaMallocAsync(&d, 8192, s[0])) return 1;                    // device 0's current pool
    static int kernelStub;
    cudaLaunchKernel(&kernelStub, dim3(1), dim3(1), nullptr, 0, s[1]);  // device 1's stream, device 0 current
    cudaLaunchKernel(&kernelStub, dim3(1), dim3(1), nullptr, 0, s[0]);  // its own device: not counted
    cudaMemcpyAsync(a, b, 128, cudaMemcpyDefault, s[1]);              // device 1's stream, device 0 current: off device
    cudaMemcpy(d, c, 256, cudaMemcpyDefault);                         // a peer copy, synchronous
    cudaFreeAsync(a, s[1]);
    cudaFreeAsync(b, s[1]);
    cudaFreeAsync(c, s[1]);
    cudaFreeAsync(d, s[0]);
    printf("done\n");
    return 0;
}
