package author

import "testing"

// TestOpHoistAlloc: an allocation moved before the loop around it; one
// outside a loop is not.
func TestOpHoistAlloc(t *testing.T) {
	got := opMutants(t, "hoist-alloc", `int main() {
    for (int i = 0; i < 4; i++) {
        // BEGIN SOLUTION
        CHECK(cudaMallocAsync(&a, 64, s));
        CHECK(cudaFreeAsync(a, s));
        // END SOLUTION
    }
    // BEGIN SOLUTION
    CHECK(cudaMallocAsync(&a, 64, s));
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"hoist-alloc@4 | -for (int i = 0; i < 4; i++) { ; -CHECK(cudaMallocAsync(&a, 64, s)); ; +CHECK(cudaMallocAsync(&a, 64, s)); ; +for (int i = 0; i < 4; i++) {",
	)
}
