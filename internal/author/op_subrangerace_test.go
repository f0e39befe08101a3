package author

import "testing"

// TestOpSubrangeRace: each memset, copy or launch given a pointer past a
// block's start (p + off, &p[i], a cast of one) moved to a stream of its
// own; one given the block itself, &p[0], or a sum of numbers (n + 1) is
// left alone.
func TestOpSubrangeRace(t *testing.T) {
	got := opMutants(t, "subrange-race", `struct Block { char* p; size_t n; };
void run(char* base, float* x, Block b, cudaStream_t s) {
    // BEGIN SOLUTION
    CHECK(cudaMemsetAsync(base + off, 0, n, s));
    CHECK(cudaMemcpyAsync(x, &base[i * n], n, cudaMemcpyDeviceToDevice, s));
    CHECK(cudaMemsetAsync(base, 0, n, s));
    CHECK(cudaMemsetAsync(&base[0], 0, n, s));
    k<<<1, 32, 0, s>>>(x + (size_t)i * n, n);
    k<<<1, 32, 0, s>>>(x, n + 1);
    CHECK(cudaMemcpyAsync(x, (char*)b.p + off, n, cudaMemcpyDeviceToDevice, s));
    CHECK(cudaMemsetAsync(/* here */ base + off, 0, n, s));
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"subrange-race@4 | -CHECK(cudaMemsetAsync(base + off, 0, n, s)); ; +CHECK(cudaMemsetAsync(base + off, 0, n, [] { static cudaStream_t lessons_s = [] { cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); return s; }(); return lessons_s; }()));",
		"subrange-race@5 | -CHECK(cudaMemcpyAsync(x, &base[i * n], n, cudaMemcpyDeviceToDevice, s)); ; +CHECK(cudaMemcpyAsync(x, &base[i * n], n, cudaMemcpyDeviceToDevice, [] { static cudaStream_t lessons_s = [] { cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); return s; }(); return lessons_s; }()));",
		"subrange-race@8 | -k<<<1, 32, 0, s>>>(x + (size_t)i * n, n); ; +k<<<1, 32, 0, [] { static cudaStream_t lessons_s = [] { cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); return s; }(); return lessons_s; }()>>>(x + (size_t)i * n, n);",
		"subrange-race@10 | -CHECK(cudaMemcpyAsync(x, (char*)b.p + off, n, cudaMemcpyDeviceToDevice, s)); ; +CHECK(cudaMemcpyAsync(x, (char*)b.p + off, n, cudaMemcpyDeviceToDevice, [] { static cudaStream_t lessons_s = [] { cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); return s; }(); return lessons_s; }()));",
	)
}
