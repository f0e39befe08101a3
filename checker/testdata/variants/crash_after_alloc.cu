// Allocates, then crashes: the statistics up to the crash must survive.
#include <cstdio>
#include <cuda_runtime.h>

int main() {
    float* d = nullptr;
    for (int i = 0; i < 3; i++) cudaMalloc(&d, 1 << 20);
    printf("about to crash\n");
    fflush(stdout);
    *(volatile int*)nullptr = 1;
    return 0;
}
