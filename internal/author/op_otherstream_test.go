package author

import "testing"

// TestOpOtherStream: each stream argument replaced by 0 and by each other
// stream in scope (a global, a parameter, an array's first element).
func TestOpOtherStream(t *testing.T) {
	got := opMutants(t, "other-stream", `cudaStream_t g;
void run(float* x, cudaStream_t s) {
    cudaStream_t t[2];
    // BEGIN SOLUTION
    CHECK(cudaFreeAsync(x, s));
    k<<<1, 32, 0, t[1]>>>(x);
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"other-stream@5/0 | -CHECK(cudaFreeAsync(x, s)); ; +CHECK(cudaFreeAsync(x, 0));",
		"other-stream@5/g | -CHECK(cudaFreeAsync(x, s)); ; +CHECK(cudaFreeAsync(x, g));",
		"other-stream@5/t[0] | -CHECK(cudaFreeAsync(x, s)); ; +CHECK(cudaFreeAsync(x, t[0]));",
		"other-stream@6/0 | -k<<<1, 32, 0, t[1]>>>(x); ; +k<<<1, 32, 0, 0>>>(x);",
		"other-stream@6/g | -k<<<1, 32, 0, t[1]>>>(x); ; +k<<<1, 32, 0, g>>>(x);",
		"other-stream@6/s | -k<<<1, 32, 0, t[1]>>>(x); ; +k<<<1, 32, 0, s>>>(x);",
		"other-stream@6/t[0] | -k<<<1, 32, 0, t[1]>>>(x); ; +k<<<1, 32, 0, t[0]>>>(x);",
	)
}

// TestOtherStreamBraceOnItsOwnLine: a function whose brace is on a line
// of its own has its parameters in its scope, and in its scope alone (a
// mutant that named one elsewhere did not compile); a prototype's
// parameters are in scope nowhere.
func TestOtherStreamBraceOnItsOwnLine(t *testing.T) {
	got := opMutants(t, "other-stream", `void fill(float* x, cudaStream_t first);
void produce(float* x, cudaStream_t mine, cudaStream_t other)
{
    // BEGIN SOLUTION
    cudaMemsetAsync(x, 0, 64, mine);
    // END SOLUTION
}
void consume(float* x, cudaStream_t s)
{
    // BEGIN SOLUTION
    cudaFreeAsync(x, s);
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"other-stream@5/0 | -cudaMemsetAsync(x, 0, 64, mine); ; +cudaMemsetAsync(x, 0, 64, 0);",
		"other-stream@5/other | -cudaMemsetAsync(x, 0, 64, mine); ; +cudaMemsetAsync(x, 0, 64, other);",
		"other-stream@11/0 | -cudaFreeAsync(x, s); ; +cudaFreeAsync(x, 0);",
	)
}
