package author

import "testing"

// TestOpSyncTwin: each stream-ordered call of a line its synchronous twin
// (two on one line: one mutant each, variants 1 and 2); a space before the
// parenthesis is no matter; a call with a comment in its arguments is left
// alone.
func TestOpSyncTwin(t *testing.T) {
	got := opMutants(t, "sync-twin", `void run(float* x, cudaMemPool_t pool, cudaStream_t s) {
    // BEGIN SOLUTION
    CHECK(cudaMallocFromPoolAsync(&x, 64, pool, s)); CHECK(cudaMemsetAsync(x, 0, 64, s));
    CHECK(cudaFreeAsync (x, s));
    CHECK(cudaFreeAsync(x, /* the stream */ s));
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"sync-twin@3/1 | -CHECK(cudaMallocFromPoolAsync(&x, 64, pool, s)); CHECK(cudaMemsetAsync(x, 0, 64, s)); ; +CHECK(cudaMalloc(&x, 64)); CHECK(cudaMemsetAsync(x, 0, 64, s));",
		"sync-twin@3/2 | -CHECK(cudaMallocFromPoolAsync(&x, 64, pool, s)); CHECK(cudaMemsetAsync(x, 0, 64, s)); ; +CHECK(cudaMallocFromPoolAsync(&x, 64, pool, s)); CHECK(cudaMemset(x, 0, 64));",
		"sync-twin@4 | -CHECK(cudaFreeAsync (x, s)); ; +CHECK(cudaFree(x));",
	)
}
