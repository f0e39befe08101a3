package author

import "testing"

// TestOpErrorKept: the first error kept becomes the last (its guard
// dropped), a get's failure answered becomes ignored; a guard on another
// variable, or a call that is not a get of a pool's attribute, is left alone.
func TestOpErrorKept(t *testing.T) {
	src := `int main() {
    // BEGIN SOLUTION
    if (error_ == cudaSuccess) error_ = e;
    if (first == cudaSuccess) other = e;
    if (cudaMemPoolGetAttribute(pool, a, &v) != cudaSuccess) return 0;
    if (cudaMemPoolSetAttribute(pool, a, &v) != cudaSuccess) return 1;
    if (cudaDeviceGetAttribute(&v, attr, 0) != cudaSuccess) return false;
    // END SOLUTION
}
`
	wantMutants(t, opMutants(t, "first-error", src),
		"first-error@3 | -if (error_ == cudaSuccess) error_ = e; ; +error_ = e;")
	wantMutants(t, opMutants(t, "unchecked-get", src),
		"unchecked-get@5 | -if (cudaMemPoolGetAttribute(pool, a, &v) != cudaSuccess) return 0; ; +cudaMemPoolGetAttribute(pool, a, &v);")
}
