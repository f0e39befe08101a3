// The honest program the corpus is held against: one cudaMalloc (which
// fails without a GPU, and is counted all the same), a normal exit.
#include <cuda_runtime.h>
#include <stdio.h>

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    printf("one allocation asked for\n");
    return 0;
}
