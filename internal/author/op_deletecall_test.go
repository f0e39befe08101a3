package author

import "testing"

// TestOpDeleteCall: a call of the CUDA API left out, its comment kept; a
// call over two lines and a call in a string are not.
func TestOpDeleteCall(t *testing.T) {
	got := opMutants(t, "delete-call", `int main() {
    // BEGIN SOLUTION
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); // its own stream
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &max));
    cudaEventRecord(e,
                    s);
    printf("cudaEventRecord(e, s);\n");
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"delete-call@3 | -CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); // its own stream ; +// its own stream",
		"delete-call@4 | -CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &max));",
	)
}
