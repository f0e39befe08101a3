package author

import "testing"

// TestOpNoWork: one mutant: launches left out (their comments kept) and
// the allocator's calls made success; what it prints is kept.
func TestOpNoWork(t *testing.T) {
	got := opMutants(t, "no-work", `int main() {
    // BEGIN SOLUTION
    CHECK(cudaMallocAsync(&p, 64, s));
    k<<<1, 32, 0, s>>>(p); // the work
    printf("done\n");
    CHECK(cuMemMap(ptr, size, 0, h, 0));
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"no-work | -CHECK(cudaMallocAsync(&p, 64, s)); ; -k<<<1, 32, 0, s>>>(p); // the work ; -printf(\"done\\n\"); ; -CHECK(cuMemMap(ptr, size, 0, h, 0)); ; +CHECK(cudaSuccess); ; +// the work ; +printf(\"done\\n\"); ; +CHECK(CUDA_SUCCESS);",
	)
}
