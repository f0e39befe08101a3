// A hundred allocations of device memory by a runtime function the
// library does not hook and the witness does not probe: cudaMallocArray
// (1 MiB each, 256 x 1024 floats), then the one cudaMalloc the record is
// to show. Not a lie of the record so much as memory it does not see:
// malloc_calls counts cudaMalloc's kin, and an array (like
// cudaMalloc3DArray, cudaMallocMipmappedArray, the driver's cuArrayCreate)
// is device memory taken all the same.
// With a fake GPU every call fails and nothing is taken: judge it on the
// GPU, where it should print "arrays 100".
// want: cudaMallocArray|the statistics record does not match what the kernel saw
// forged when it prints: arrays 100
#include <cuda_runtime.h>
#include <stdio.h>

int main() {
    cudaChannelFormatDesc d = cudaCreateChannelDesc<float>();
    int ok = 0;
    for (int i = 0; i < 100; i++) {
        cudaArray_t a;
        if (cudaMallocArray(&a, &d, 256, 1024) == cudaSuccess) ok++;
    }
    printf("arrays %d\n", ok);
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
