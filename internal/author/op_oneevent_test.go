package author

import "testing"

// TestOpOneEvent: an element e[i] of an array of events, i not 0, replaced
// by e[0]; e[0] itself is left.
func TestOpOneEvent(t *testing.T) {
	got := opMutants(t, "one-event", `int main() {
    // BEGIN SOLUTION
    CHECK(cudaEventRecord(done[i], s));
    CHECK(cudaStreamWaitEvent(t, done[0], 0));
    CHECK(cudaEventSynchronize(ev.e[b + 1]));
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"one-event@3 | -CHECK(cudaEventRecord(done[i], s)); ; +CHECK(cudaEventRecord(done[0], s));",
		"one-event@5 | -CHECK(cudaEventSynchronize(ev.e[b + 1])); ; +CHECK(cudaEventSynchronize(ev.e[0]));",
	)
}
