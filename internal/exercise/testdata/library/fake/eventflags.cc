// One buffer made on stream 1 and used on stream 2, ordered by an event
// that stream 2 waits for: recorded with cudaEventRecordWithFlags (as
// PyTorch 2 records its events) when FAKE_RECORD is "flags", with
// cudaEventRecord when "plain", not at all when unset.
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void kernel() {}

static int launch(void* a, void* b, cudaStream_t s) {
    void* args[2] = {&a, &b};
    return cudaLaunchKernel((const void*)kernel, dim3(1), dim3(1), args, 0, s);
}

int main() {
    cudaStream_t s1 = (cudaStream_t)0x100, s2 = (cudaStream_t)0x200;
    void *p, *q;
    if (cudaMallocAsync(&p, 4096, s1) || cudaMallocAsync(&q, 4096, s2)) return 1;
    launch(p, p, s1);
    cudaEvent_t e;
    cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    const char* mode = getenv("FAKE_RECORD");
    if (mode != nullptr && strcmp(mode, "flags") == 0) cudaEventRecordWithFlags(e, s1, 0);
    if (mode != nullptr && strcmp(mode, "plain") == 0) cudaEventRecord(e, s1);
    cudaStreamWaitEvent(s2, e, 0);
    launch(p, q, s2);
    cudaStreamSynchronize(s2);
    cudaStreamSynchronize(s1);
    cudaFreeAsync(p, s1);
    cudaFreeAsync(q, s2);
    cudaEventDestroy(e);
    printf("done\n");
    return 0;
}
