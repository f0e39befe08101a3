// An honest program that waits on the host each way, through the hooks:
// the witness's count of each wait's runtime entry is the record's
// (without a GPU each call fails, and is counted all the same).
#include <cuda_runtime.h>
#include <stdio.h>

int main() {
    cudaEvent_t e = NULL;
    cudaEventCreate(&e);
    cudaDeviceSynchronize();
    cudaStreamSynchronize(0);
    cudaEventSynchronize(e);
    printf("three host waits\n");
    return 0;
}
