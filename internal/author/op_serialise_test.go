package author

import "testing"

// TestOpSerialise: one mutant: a wait for its stream after every launch on
// a named stream (none after the launch on stream 0).
func TestOpSerialise(t *testing.T) {
	got := opMutants(t, "serialise", `void run(float* x, cudaStream_t s, cudaStream_t t) {
    // BEGIN SOLUTION
    k<<<1, 32, 0, s>>>(x);
    k<<<1, 32, 0, 0>>>(x);
    k<<<1, 32, 0, t>>>(x);
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"serialise | -k<<<1, 32, 0, 0>>>(x); ; -k<<<1, 32, 0, t>>>(x); ; +cudaStreamSynchronize(s); ; +k<<<1, 32, 0, 0>>>(x); ; +k<<<1, 32, 0, t>>>(x); ; +cudaStreamSynchronize(t);",
	)
}
