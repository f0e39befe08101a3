package author

import "testing"

// TestOpResetAfterBarrier: the statement before a __syncthreads() moved
// after it; not when it is a barrier itself.
func TestOpResetAfterBarrier(t *testing.T) {
	got := opMutants(t, "reset-after-barrier", `__global__ void k(int* out) {
    __shared__ int used;
    // BEGIN SOLUTION
    if (threadIdx.x == 0) used = 0;
    __syncthreads();
    out[threadIdx.x] = atomicAdd(&used, 1);
    __syncthreads();
    __syncthreads();
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"reset-after-barrier@5 | -if (threadIdx.x == 0) used = 0; ; -__syncthreads(); ; +__syncthreads(); ; +if (threadIdx.x == 0) used = 0;",
		"reset-after-barrier@7 | -out[threadIdx.x] = atomicAdd(&used, 1); ; -__syncthreads(); ; +__syncthreads(); ; +out[threadIdx.x] = atomicAdd(&used, 1);",
	)
}
