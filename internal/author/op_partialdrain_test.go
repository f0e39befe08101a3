package author

import "testing"

// TestOpPartialDrain: a wait for the device replaced by a wait for each
// stream in scope, and a wait for x[i] by one for x[0] (for t[i] the same
// program as other-stream's t[0], made once; for a member of another
// object, p.work_[i], a mutant of its own).
func TestOpPartialDrain(t *testing.T) {
	got := opMutants(t, "partial-drain", `struct Pipe { cudaStream_t work_[2]; };
void run(cudaStream_t s, Pipe& p) {
    cudaStream_t t[2];
    // BEGIN SOLUTION
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < 2; i++) CHECK(cudaStreamSynchronize(t[i]));
    for (int i = 0; i < 2; i++) CHECK(cudaStreamSynchronize(p.work_[i]));
    CHECK(cudaStreamSynchronize(t[0]));
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"partial-drain@5/work_[0] | -CHECK(cudaDeviceSynchronize()); ; +CHECK(cudaStreamSynchronize(work_[0]));",
		"partial-drain@5/s | -CHECK(cudaDeviceSynchronize()); ; +CHECK(cudaStreamSynchronize(s));",
		"partial-drain@5/t[0] | -CHECK(cudaDeviceSynchronize()); ; +CHECK(cudaStreamSynchronize(t[0]));",
		"partial-drain@7/first | -for (int i = 0; i < 2; i++) CHECK(cudaStreamSynchronize(p.work_[i])); ; +for (int i = 0; i < 2; i++) CHECK(cudaStreamSynchronize(p.work_[0]));",
	)
}
