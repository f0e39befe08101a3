// A hundred allocations of device memory by a runtime function the
// library did not hook and the witness did not probe: cudaMallocArray
// (1 MiB each, 256 x 1024 floats), then the one cudaMalloc the record is
// to show (attack13). Not a lie of the record so much as memory it did
// not see (as cudaMalloc3DArray, cudaMallocMipmappedArray and the
// driver's cuArrayCreate, cuArray3DCreate, cuMipmappedArrayCreate).
// Stopped: an array counts as cudaMalloc does (malloc_calls and
// malloc_bytes; a failed call too, as on a fake GPU), and the witness
// probes the arrays' entry points with cudaMalloc's. On a GPU it prints
// "arrays 100" and fails all the same.
// want: cudaMalloc was called 101 times
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
