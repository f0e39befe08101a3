package author

import "testing"

// TestOpHostWait: a host wait of each kind after each statement that runs
// in a loop (the loop around it here), the memset only after an
// allocation; none after the region outside the loop.
func TestOpHostWait(t *testing.T) {
	got := opMutants(t, "host-wait", `void run(float* x, cudaStream_t s) {
    for (int i = 0; i < 4; i++) {
        // BEGIN SOLUTION
        CHECK(cudaMallocAsync(&x, 64, s));
        k<<<1, 32, 0, s>>>(x);
        if (i == 3) break;
        // END SOLUTION
    }
    // BEGIN SOLUTION
    CHECK(cudaFreeAsync(x, s));
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"host-wait@4/device | +cudaDeviceSynchronize();",
		"host-wait@4/stream | +cudaStreamSynchronize(s);",
		"host-wait@4/event | +{ cudaEvent_t lessons_e; cudaEventCreateWithFlags(&lessons_e, cudaEventDisableTiming); cudaEventRecord(lessons_e, s); cudaEventSynchronize(lessons_e); cudaEventDestroy(lessons_e); }",
		"host-wait@4/memcpy | +{ char lessons_c; cudaMemcpy(&lessons_c, x, 1, cudaMemcpyDeviceToHost); }",
		"host-wait@4/memset | +cudaMemset(x, 0, 64);",
		"host-wait@5/device | +cudaDeviceSynchronize();",
		"host-wait@5/stream | +cudaStreamSynchronize(s);",
		"host-wait@5/event | +{ cudaEvent_t lessons_e; cudaEventCreateWithFlags(&lessons_e, cudaEventDisableTiming); cudaEventRecord(lessons_e, s); cudaEventSynchronize(lessons_e); cudaEventDestroy(lessons_e); }",
		"host-wait@5/memcpy | +{ char lessons_c; cudaMemcpy(&lessons_c, x, 1, cudaMemcpyDeviceToHost); }",
		"host-wait@6/device | +cudaDeviceSynchronize();",
		"host-wait@6/stream | +cudaStreamSynchronize(s);",
		"host-wait@6/event | +{ cudaEvent_t lessons_e; cudaEventCreateWithFlags(&lessons_e, cudaEventDisableTiming); cudaEventRecord(lessons_e, s); cudaEventSynchronize(lessons_e); cudaEventDestroy(lessons_e); }",
		"host-wait@6/memcpy | +{ char lessons_c; cudaMemcpy(&lessons_c, x, 1, cudaMemcpyDeviceToHost); }",
	)
}
