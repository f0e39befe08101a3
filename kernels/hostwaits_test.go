package kernels_test

import (
	"bytes"
	"strings"
	"testing"
)

// A drain may wait once for each iteration (review/blind25, issue 36):
// async-pipeline's correct design records an event after each iteration
// and drains with a cudaEventSynchronize of each, 12 host waits (20 in
// the hidden run "20 on 3"), every one after every submit. The spec
// bounds host_waits at one an iteration: the solution, every correct
// alternative and every blind set's correct design keep within it, wait
// nowhere between two allocations, and leave no result unwaited. The
// wrong answers that shared the 12 waits fail on what they do wrong: an
// event recorded before the copy of the sums leaves the last sums of
// each stream unwaited, and iterations chained by events leave no two
// streams free to run at once (the spec judges the GPU's own overlap,
// max_concurrent_streams, which the stand-in runtime does not time).
// With 16 streams ("18 on 16") every result is waited for; a drain over
// the default 4 streams (the mutant that survived the wider bound on the
// H200 in session 28) leaves results unwaited there. With fewer
// iterations than streams ("3 on 8", review/blind26) every result is
// waited for too; the event of each stream's last iteration found by
// it >= iterations - count in size_t is never recorded there (the
// subtraction wraps), and every result comes home unwaited, though in
// every other run the test is the right one.
func TestHarnessesBoundDrainWaitsByIterations(t *testing.T) {
	h := buildHarnessRig(t)
	const sol = "solutions/day069/async_pipeline.cu"
	const wrongs = "solutions/day069/wrong/async-pipeline/"
	type program struct {
		name     string
		content  []byte
		unwaited bool // some results are brought home unwaited
		chained  bool // no two streams free to run at once
		// few: the drain waits for the first 4 streams only (session
		// 28's surviving mutant const-arg@153/count_): with 16 streams,
		// results come home unwaited
		few bool
		// wraps: a stream's last iteration found by an unsigned
		// iterations - count, which wraps with fewer iterations than
		// streams: results unwaited there alone
		wraps bool
	}
	var ps []program
	for _, c := range correctDesigns(t, sol, "solutions/day069/right/async-pipeline", "async-pipeline", "correct.cu") {
		ps = append(ps, program{name: c.name, content: c.content})
	}
	ps = append(ps,
		program{name: "wrong/blind25_iteration_event_recorded_before_the_sums_copy", content: patched(t, sol, wrongs+"blind25_iteration_event_recorded_before_the_sums_copy.patch"), unwaited: true},
		program{name: "wrong/blind25_each_iteration_made_to_wait_for_the_one_before", content: patched(t, sol, wrongs+"blind25_each_iteration_made_to_wait_for_the_one_before.patch"), chained: true},
		program{name: "wrong/blind26_last_iteration_test_wraps_below_zero", content: patched(t, sol, wrongs+"blind26_last_iteration_test_wraps_below_zero.patch"), wraps: true},
	)
	solution := string(ps[0].content)
	const drain = "for (int i = 0; i < count_; i++) CHECK(cudaStreamSynchronize(streams_[i]));"
	if !strings.Contains(solution, drain) {
		t.Fatalf("%s no longer drains with %q: mend the mutants here", sol, drain)
	}
	ps = append(ps,
		program{name: "mutant const-arg@153/count_", content: []byte(strings.Replace(solution, drain, strings.Replace(drain, "i < count_", "i < (4)", 1), 1)), few: true},
	)
	for i, p := range ps {
		prog := h.build(t, "drainwaits-"+string(rune('a'+i)), sol, sol, p.content)
		for _, run := range []struct {
			args       []string
			iterations float64
		}{{nil, 12}, {[]string{"20", "3"}, 20}, {[]string{"18", "16"}, 18}, {[]string{"3", "8"}, 3}} {
			s := h.recordFailing(t, prog, run.args...)
			if len(run.args) > 0 && run.args[0] == "3" {
				// Fewer iterations than streams: asked only that every
				// result is waited for (a wait a stream is more waits
				// than iterations here, and the spec bounds none).
				t.Logf("%s %v: unwaited_results %d %s", p.name, run.args, s.UnwaitedResults, s.RaceNote("unwaited_results"))
				if got := s.UnwaitedResults > 0; got != (p.wraps || p.unwaited) {
					t.Errorf("%s %v: unwaited_results %d (%s), want some: %v", p.name, run.args, s.UnwaitedResults, s.RaceNote("unwaited_results"), p.wraps || p.unwaited)
				}
				continue
			}
			sixteen := len(run.args) > 0 && run.args[1] == "16"
			if sixteen {
				// The run with the most streams: asked only that
				// every result is waited for (the drain over all 16).
				if got := s.UnwaitedResults > 0; got != (p.few || p.unwaited) {
					t.Errorf("%s %v: unwaited_results %d (%s), want some: %v", p.name, run.args, s.UnwaitedResults, s.RaceNote("unwaited_results"), p.few || p.unwaited)
				}
				continue
			}
			waits, _ := s.Value("host_waits")
			t.Logf("%s %v: host_waits %v, waits_between_async_allocs %d, unwaited_results %d, max_unordered_streams %d",
				p.name, run.args, waits, s.WaitsBetweenAsyncAllocs, s.UnwaitedResults, s.MaxUnorderedStreams)
			if !p.few && (waits == 0 || waits > run.iterations || s.WaitsBetweenAsyncAllocs != 0) {
				t.Errorf("%s %v: host_waits %v, waits_between_async_allocs %d; want 1 to %v, and none between allocations",
					p.name, run.args, waits, s.WaitsBetweenAsyncAllocs, run.iterations)
			}
			if got := s.UnwaitedResults > 0; got != p.unwaited {
				t.Errorf("%s %v: unwaited_results %d (%s), want some: %v", p.name, run.args, s.UnwaitedResults, s.RaceNote("unwaited_results"), p.unwaited)
			}
			if got := s.MaxUnorderedStreams < 2; got != p.chained {
				t.Errorf("%s %v: max_unordered_streams %d, want fewer than 2: %v", p.name, run.args, s.MaxUnorderedStreams, p.chained)
			}
		}
	}
}

// A hand never waits on the host, whether or not its events are done
// (review/blind25, issue 36): strict-pool's wrong design keeps at most
// two events and, when both are still busy, takes the older and waits
// for it with cudaEventSynchronize. On the H200 the default rounds' fills
// were done before each hand asked, and it never waited; in the hidden
// run "A works on after its put" A's kernel of about a millisecond a
// round outlasts the host's queueing, and its events are busy. Here the
// stand-in runtime answers every query "not ready" until the host waits
// (STUB_QUERY_PENDING), as a GPU that lags its host does: the wrong
// design waits between two allocations, and so does the hand that
// synchronises its event every time; the solution, every correct
// alternative and every blind set's correct design never do.
func TestHarnessesShowHandsWaitingOnTheHost(t *testing.T) {
	h := buildHarnessRig(t)
	const sol = "solutions/day071/strict_pool.cu"
	const wrongs = "solutions/day071/wrong/strict-pool/"
	type program struct {
		name    string
		content []byte
		wrong   bool
	}
	var ps []program
	pools := propsSayPools()
	for _, c := range correctDesigns(t, sol, "solutions/day071/right/strict-pool", "strict-pool", "correct.cu") {
		if c.name != "solution" && bytes.Contains(c.content, []byte("memoryPoolsSupported")) && !pools {
			t.Logf("%s: not built here (this toolkit's cudaDeviceProp has no memoryPoolsSupported)", c.name)
			continue
		}
		ps = append(ps, program{c.name, c.content, false})
	}
	for _, w := range []string{"blind25_event_cap_waits_for_the_oldest_on_the_host.patch", "blind21_hand_waits_on_the_host_for_the_event.patch"} {
		ps = append(ps, program{"wrong/" + w, patched(t, sol, wrongs+w), true})
	}
	for i, p := range ps {
		prog := h.build(t, "handwaits71-"+string(rune('a'+i)), sol, sol, p.content)
		for _, pending := range []bool{false, true} {
			var env []string
			if pending {
				env = []string{"STUB_QUERY_PENDING=1"}
			}
			got, _ := h.recordRun(t, prog, env, true, "6", "1", "1")
			s := got.Stats
			t.Logf("%s (queries pending %v): waits_between_async_allocs %d, event_syncs %d, events made %d",
				p.name, pending, s.WaitsBetweenAsyncAllocs, s.EventSyncs, s.EventsCreated)
			want := p.wrong && pending || p.name == "wrong/blind21_hand_waits_on_the_host_for_the_event.patch"
			if got := s.WaitsBetweenAsyncAllocs > 0; got != want {
				t.Errorf("%s [6 1 1] (queries pending %v): waits_between_async_allocs %d, want some: %v", p.name, pending, s.WaitsBetweenAsyncAllocs, want)
			}
		}
	}
}
