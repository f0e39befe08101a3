package author

import "testing"

// TestOpDeleteLaunch: a launch left out, its comment kept; a launch over
// two lines is not a statement of one line, and is left.
func TestOpDeleteLaunch(t *testing.T) {
	got := opMutants(t, "delete-launch", `void run(float* x, cudaStream_t s) {
    // BEGIN SOLUTION
    k<<<1, 32, 0, s>>>(x);  // fill x
    k<<<1, 32>>>(x,
                 x);
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"delete-launch@3 | -k<<<1, 32, 0, s>>>(x);  // fill x ; +// fill x",
	)
}
