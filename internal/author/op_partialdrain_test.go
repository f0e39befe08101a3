package author

import "testing"

// TestOpPartialDrain: a wait for the device replaced by a wait for each
// stream in scope, and a wait for x[i] by one for x[0] (for t[i] the
// same program as other-stream's t[0], made once; for a pointer to
// streams, a mutant of its own).
func TestOpPartialDrain(t *testing.T) {
	got := opMutants(t, "partial-drain", `cudaStream_t g;
void run(cudaStream_t s, const cudaStream_t* streams_) {
    cudaStream_t t[2];
    // BEGIN SOLUTION
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < 2; i++) CHECK(cudaStreamSynchronize(t[i]));
    for (int i = 0; i < 2; i++) CHECK(cudaStreamSynchronize(streams_[i]));
    CHECK(cudaStreamSynchronize(t[0]));
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"partial-drain@5/g | -CHECK(cudaDeviceSynchronize()); ; +CHECK(cudaStreamSynchronize(g));",
		"partial-drain@5/s | -CHECK(cudaDeviceSynchronize()); ; +CHECK(cudaStreamSynchronize(s));",
		"partial-drain@5/t[0] | -CHECK(cudaDeviceSynchronize()); ; +CHECK(cudaStreamSynchronize(t[0]));",
		"partial-drain@7/first | -for (int i = 0; i < 2; i++) CHECK(cudaStreamSynchronize(streams_[i])); ; +for (int i = 0; i < 2; i++) CHECK(cudaStreamSynchronize(streams_[0]));",
	)
}
