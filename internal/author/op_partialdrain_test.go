package author

import "testing"

// TestOpPartialDrain: a wait for the device replaced by a wait for each stream in scope.
func TestOpPartialDrain(t *testing.T) {
	got := opMutants(t, "partial-drain", `cudaStream_t g;
void run(cudaStream_t s) {
    cudaStream_t t[2];
    // BEGIN SOLUTION
    CHECK(cudaDeviceSynchronize());
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"partial-drain@5/g | -CHECK(cudaDeviceSynchronize()); ; +CHECK(cudaStreamSynchronize(g));",
		"partial-drain@5/s | -CHECK(cudaDeviceSynchronize()); ; +CHECK(cudaStreamSynchronize(s));",
		"partial-drain@5/t[0] | -CHECK(cudaDeviceSynchronize()); ; +CHECK(cudaStreamSynchronize(t[0]));",
	)
}
