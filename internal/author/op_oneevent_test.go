package author

import "testing"

// TestOpOneEvent: an element e[i] of an array of events, i not 0, replaced
// by e[0] (e[0] itself is left); an event a function gives (event_of(s))
// or a member of an element taken from a container (f.event) replaced by
// the first one that site named, kept in a static; a member of the
// program's one state (g.ready) is left.
func TestOpOneEvent(t *testing.T) {
	got := opMutants(t, "one-event", `struct Freed { char* p; cudaEvent_t event; };
struct State { cudaEvent_t ready; } g;
cudaEvent_t event_of(cudaStream_t s);
void take(std::vector<Freed>& list, cudaStream_t s) {
    // BEGIN SOLUTION
    CHECK(cudaEventRecord(done[i], s));
    CHECK(cudaStreamWaitEvent(t, done[0], 0));
    CHECK(cudaEventSynchronize(ev.e[b + 1]));
    Freed f = list.front();
    CHECK(cudaStreamWaitEvent(s, f.event, 0));
    CHECK(cudaEventRecord(event_of(s), s));
    CHECK(cudaStreamWaitEvent(s, g.ready, 0));
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"one-event@6 | -CHECK(cudaEventRecord(done[i], s)); ; +CHECK(cudaEventRecord(done[0], s));",
		"one-event@8 | -CHECK(cudaEventSynchronize(ev.e[b + 1])); ; +CHECK(cudaEventSynchronize(ev.e[0]));",
		"one-event@10/first | -CHECK(cudaStreamWaitEvent(s, f.event, 0)); ; +CHECK(cudaStreamWaitEvent(s, [&] { static cudaEvent_t lessons_first = f.event; return lessons_first; }(), 0));",
		"one-event@11/first | -CHECK(cudaEventRecord(event_of(s), s)); ; +CHECK(cudaEventRecord([&] { static cudaEvent_t lessons_first = event_of(s); return lessons_first; }(), s));",
	)
}
