package author

import "testing"

// TestOpHostWait: a host wait of each kind after each statement that runs
// in a loop (the loop around it here), the memset only after an
// allocation; none after the region outside the loop, none after a
// statement that calls nothing of CUDA's nor of the file's own (const
// size_t half = 32; sizes.push_back(half); if (i == 3) break;: launch(x,
// s) is the file's), none after the launch whose next statement queues on
// its stream too, neither allocating nor freeing (the memset's wait stands
// for it), none in a kernel.
func TestOpHostWait(t *testing.T) {
	got := opMutants(t, "host-wait", `__global__ void k(float* x) {
    for (int i = 0; i < 4; i++) {
        // BEGIN SOLUTION
        x[i] = atomicAdd(x, 1.0f);
        // END SOLUTION
    }
}
void launch(float* x, cudaStream_t s) { k<<<1, 32, 0, s>>>(x); }
void run(float* x, cudaStream_t s) {
    for (int i = 0; i < 4; i++) {
        // BEGIN SOLUTION
        CHECK(cudaMallocAsync(&x, 64, s));
        const size_t half = 32;
        sizes.push_back(half);
        launch(x, s);
        k<<<1, 32, 0, s>>>(x);
        CHECK(cudaMemsetAsync(x, 0, 64, s));
        if (i == 3) break;
        // END SOLUTION
    }
    // BEGIN SOLUTION
    CHECK(cudaFreeAsync(x, s));
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"host-wait@12/device | +cudaDeviceSynchronize();",
		"host-wait@12/stream | +cudaStreamSynchronize(s);",
		"host-wait@12/event | +{ cudaEvent_t lessons_e; cudaEventCreateWithFlags(&lessons_e, cudaEventDisableTiming); cudaEventRecord(lessons_e, s); cudaEventSynchronize(lessons_e); cudaEventDestroy(lessons_e); }",
		"host-wait@12/memcpy | +{ char lessons_c; cudaMemcpy(&lessons_c, x, 1, cudaMemcpyDeviceToHost); }",
		"host-wait@12/memset | +cudaMemset(x, 0, 64);",
		"host-wait@15/device | +cudaDeviceSynchronize();",
		"host-wait@15/stream | +cudaStreamSynchronize(s);",
		"host-wait@15/event | +{ cudaEvent_t lessons_e; cudaEventCreateWithFlags(&lessons_e, cudaEventDisableTiming); cudaEventRecord(lessons_e, s); cudaEventSynchronize(lessons_e); cudaEventDestroy(lessons_e); }",
		"host-wait@15/memcpy | +{ char lessons_c; cudaMemcpy(&lessons_c, x, 1, cudaMemcpyDeviceToHost); }",
		"host-wait@17/device | +cudaDeviceSynchronize();",
		"host-wait@17/stream | +cudaStreamSynchronize(s);",
		"host-wait@17/event | +{ cudaEvent_t lessons_e; cudaEventCreateWithFlags(&lessons_e, cudaEventDisableTiming); cudaEventRecord(lessons_e, s); cudaEventSynchronize(lessons_e); cudaEventDestroy(lessons_e); }",
		"host-wait@17/memcpy | +{ char lessons_c; cudaMemcpy(&lessons_c, x, 1, cudaMemcpyDeviceToHost); }",
		"host-wait@17/memset | +cudaMemset(x, 0, 64);",
	)
}
