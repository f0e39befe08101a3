// A resource whose blocks are ordered by events.
#pragma once
#include <cuda_runtime.h>

struct Resource {
    void release(void* p, cudaStream_t stream, cudaEvent_t e) {
        /* BEGIN SOLUTION */
        cudaEventRecord(e, stream);
        /* END SOLUTION */
    }
    void reserve(int n, size_t bytes) {
        for (int i = 0; i <= n; i++) {
            // BEGIN SOLUTION
            for (int j = 0; j < n; j++) cudaMalloc(&p_, bytes);
            cuMemCreate(&h_, bytes, &prop_, 0);
            // END SOLUTION
        }
    }
    void* p_;
};
