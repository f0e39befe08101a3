package author

import "testing"

// TestOpOffByOne: a loop's bound flipped (<= to < and >= to >, not to <==
// or >==), or a size one byte short.
func TestOpOffByOne(t *testing.T) {
	got := opMutants(t, "off-by-one", `int main() {
    // BEGIN SOLUTION
    for (int i = 0; i < n; i++) use(i);
    for (int i = n; i >= 0; i--) use(i);
    CHECK(cudaMalloc(&p, n * sizeof(float)));
    CHECK(cudaMemsetAsync(p, 0, bytes, s));
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"off-by-one@3 | -for (int i = 0; i < n; i++) use(i); ; +for (int i = 0; i <= n; i++) use(i);",
		"off-by-one@4 | -for (int i = n; i >= 0; i--) use(i); ; +for (int i = n; i > 0; i--) use(i);",
		"off-by-one@5 | -CHECK(cudaMalloc(&p, n * sizeof(float))); ; +CHECK(cudaMalloc(&p, (n * sizeof(float)) - 1));",
		"off-by-one@6 | -CHECK(cudaMemsetAsync(p, 0, bytes, s)); ; +CHECK(cudaMemsetAsync(p, 0, (bytes) - 1, s));",
	)
}
