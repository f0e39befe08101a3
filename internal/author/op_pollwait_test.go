package author

import "testing"

// TestOpPollWait: each stream wait for an event, the host polling the
// event instead (one with a comment in its arguments is left alone); and
// the host polling the loop's stream after the last statement of each
// loop, once per loop.
func TestOpPollWait(t *testing.T) {
	got := opMutants(t, "poll-wait", `int main() {
    // BEGIN SOLUTION
    CHECK(cudaStreamWaitEvent(b, done[i], 0)); CHECK(cudaStreamWaitEvent(c, done[i], 0));
    CHECK(cudaStreamWaitEvent(b, /* e */ done[i], 0));
    // END SOLUTION
    for (int i = 0; i < 4; i++) {
        // BEGIN SOLUTION
        CHECK(cudaMallocAsync(&p, 64, s));
        k<<<1, 32, 0, s>>>(p);
        CHECK(cudaFreeAsync(p, s));
        // END SOLUTION
    }
}
`)
	wantMutants(t, got,
		"poll-wait@3/1 | -CHECK(cudaStreamWaitEvent(b, done[i], 0)); CHECK(cudaStreamWaitEvent(c, done[i], 0)); ; +CHECK([&] { cudaError_t lessons_r; while ((lessons_r = cudaEventQuery(done[i])) == cudaErrorNotReady) {} return lessons_r; }()); CHECK(cudaStreamWaitEvent(c, done[i], 0));",
		"poll-wait@3/2 | -CHECK(cudaStreamWaitEvent(b, done[i], 0)); CHECK(cudaStreamWaitEvent(c, done[i], 0)); ; +CHECK(cudaStreamWaitEvent(b, done[i], 0)); CHECK([&] { cudaError_t lessons_r; while ((lessons_r = cudaEventQuery(done[i])) == cudaErrorNotReady) {} return lessons_r; }());",
		"poll-wait@10/host | +while (cudaStreamQuery(s) == cudaErrorNotReady) {}",
	)
}
