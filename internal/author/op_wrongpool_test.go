package author

import "testing"

// TestOpWrongPool: an allocation from a pool made from the device's current pool; cudaMallocAsync is left alone.
func TestOpWrongPool(t *testing.T) {
	got := opMutants(t, "wrong-pool", `int main() {
    // BEGIN SOLUTION
    CHECK(cudaMallocFromPoolAsync(&p, 64, pool, s));
    CHECK(cudaMallocAsync(&q, 64, s));
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"wrong-pool@3 | -CHECK(cudaMallocFromPoolAsync(&p, 64, pool, s)); ; +CHECK(cudaMallocAsync(&p, 64, s));",
	)
}
