package author

import "testing"

// TestOpWrongPool: an allocation from a pool made from the device's
// current pool, and each setting of a pool (an attribute, a trim, access)
// made on the device's default pool; cudaMallocAsync, and a pool taken
// from the device, are left alone.
func TestOpWrongPool(t *testing.T) {
	got := opMutants(t, "wrong-pool", `int main() {
    cudaMemPool_t pool, shared;
    CHECK(cudaDeviceGetDefaultMemPool(&shared, 0));
    // BEGIN SOLUTION
    CHECK(cudaMallocFromPoolAsync(&p, 64, pool, s));
    CHECK(cudaMallocAsync(&q, 64, s));
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &max));
    CHECK(cudaMemPoolTrimTo(pool, 0)); CHECK(cudaMemPoolSetAccess(pool, &access, 1));
    CHECK(cudaMemPoolSetAttribute(shared, cudaMemPoolAttrReleaseThreshold, &max));
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"wrong-pool@5 | -CHECK(cudaMallocFromPoolAsync(&p, 64, pool, s)); ; +CHECK(cudaMallocAsync(&p, 64, s));",
		"wrong-pool@7/default | -CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &max)); ; +CHECK(cudaMemPoolSetAttribute([] { int lessons_d = 0; cudaGetDevice(&lessons_d); cudaMemPool_t lessons_p; cudaDeviceGetDefaultMemPool(&lessons_p, lessons_d); return lessons_p; }(), cudaMemPoolAttrReleaseThreshold, &max));",
		"wrong-pool@8/1:default | -CHECK(cudaMemPoolTrimTo(pool, 0)); CHECK(cudaMemPoolSetAccess(pool, &access, 1)); ; +CHECK(cudaMemPoolTrimTo([] { int lessons_d = 0; cudaGetDevice(&lessons_d); cudaMemPool_t lessons_p; cudaDeviceGetDefaultMemPool(&lessons_p, lessons_d); return lessons_p; }(), 0)); CHECK(cudaMemPoolSetAccess(pool, &access, 1));",
		"wrong-pool@8/2:default | -CHECK(cudaMemPoolTrimTo(pool, 0)); CHECK(cudaMemPoolSetAccess(pool, &access, 1)); ; +CHECK(cudaMemPoolTrimTo(pool, 0)); CHECK(cudaMemPoolSetAccess([] { int lessons_d = 0; cudaGetDevice(&lessons_d); cudaMemPool_t lessons_p; cudaDeviceGetDefaultMemPool(&lessons_p, lessons_d); return lessons_p; }(), &access, 1));",
	)
}
