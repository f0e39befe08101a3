// The work done after the library's end-of-run frame: a global object,
// made before main (so its destructor is registered before the library's
// exit handler, and runs after it), does the work its own way (a hundred
// cudaMalloc; on a GPU, the driver API's, as the runtime is torn down by
// then) and prints the answer, while the record, ended already, says what
// honest.cu's does.
// want: cudaMalloc was called 101 times
#include <cuda_runtime.h>
#include <stdio.h>

struct Later {
    ~Later() {
        for (int i = 0; i < 100; i++) {
            void* p = NULL;
            cudaMalloc(&p, 1 << 20);
        }
        printf("one allocation asked for\n");
    }
} later;

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    return 0;
}
