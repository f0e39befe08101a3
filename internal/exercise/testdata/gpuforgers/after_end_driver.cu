// after_end.cu as it works on a GPU: the runtime is torn down by the time
// a global object made before main is destroyed, so the destructor does
// the work through the driver (a hundred cuMemAlloc), which still
// answers, and prints the answer. Before, the record had ended by then
// and said what honest.cu's does; now its end frame comes after the
// destructor, and the driver's allocations count as cudaMalloc does.
// want: cudaMalloc was called 101 times|does not match what the kernel saw
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>

struct Later {
    ~Later() {
        CUdevice d;
        CUcontext c;
        if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&d, 0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&c, d) != CUDA_SUCCESS ||
            cuCtxSetCurrent(c) != CUDA_SUCCESS) {
            printf("no driver after the runtime's teardown\n");
            return;
        }
        int made = 0;
        for (int i = 0; i < 100; i++) {
            CUdeviceptr p;
            if (cuMemAlloc(&p, 1 << 20) == CUDA_SUCCESS) made++;
        }
        printf("one allocation asked for (%d made after the end)\n", made);
    }
} later;

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    return 0;
}
