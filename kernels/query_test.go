package kernels_test

import (
	"strings"
	"testing"
)

// A cudaEventQuery that answers done tells the host that the work queued
// before that event's record is over, and nothing more: a block pool that
// hands out a block of one cudaMalloc when another block's event is done
// (one event standing for many) has the new stream's write race the old
// stream's, and one that asks the block's own event does not.
func TestLibraryOrdersAfterAnEventTheHostSawDone(t *testing.T) {
	lib := buildStub(t, "query.c")
	got, _ := lib.run(t)
	s := got.Stats
	if s.UnorderedUses != 1 {
		t.Fatalf("unordered_uses %d, want 1 (the write after the other block's event, not the one after its own)", s.UnorderedUses)
	}
	if race := s.RaceNote("unordered_uses"); !strings.Contains(race, "cudaMemsetAsync on stream") || !strings.Contains(race, "may still be using") {
		t.Errorf("use_race %q: want the write that raced, and the one it raced", race)
	}
}

// A hidden run's settled_queries reaches the library as
// $LESSONS_STATS_SETTLED_QUERIES=1: the library waits for an event's or a
// stream's work before the program's query of it, so a query of work
// still running (the stub answers not ready until the host waited)
// answers ready, and a program that skips a wait for work already done
// skips it every time. The library's own wait is not the program's: no
// host wait is counted.
func TestLibrarySettlesQueriesWhenAsked(t *testing.T) {
	lib := buildStub(t, "settled.c")
	for _, tc := range []struct {
		env   []string
		out   string
		waits uint64
	}{
		{[]string{"STUB_QUERY_PENDING=1"}, "event pending, stream pending\n", 1},
		{[]string{"STUB_QUERY_PENDING=1", "LESSONS_STATS_SETTLED_QUERIES=1"}, "event ready, stream ready\n", 0},
		{[]string{"STUB_QUERY_PENDING=1", "LESSONS_STATS_SETTLED_QUERIES=0"}, "event pending, stream pending\n", 1},
	} {
		got, out := lib.run(t, tc.env...)
		if out != tc.out {
			t.Errorf("%v: the program printed %q, want %q", tc.env, out, tc.out)
		}
		s := got.Stats
		if s.StreamWaitEvents != tc.waits {
			t.Errorf("%v: stream_wait_events %d, want %d", tc.env, s.StreamWaitEvents, tc.waits)
		}
		if s.EventSyncs != 0 || s.StreamSyncs != 0 || s.HostPolls != 0 {
			t.Errorf("%v: event_syncs %d, stream_syncs %d, host_polls %d: the library's own waits were counted as the program's", tc.env, s.EventSyncs, s.StreamSyncs, s.HostPolls)
		}
	}
}

// A hidden run's pending_queries reaches the library as
// $LESSONS_STATS_PENDING_QUERIES=1: the first query of each event record,
// or of a stream's queued work, answers not ready, as on a GPU that lags
// the host. A poll then spins once and is counted (host_polls, and the
// wait it ended in, poll_waits), each time the event is recorded again;
// a query asked once takes its not-ready branch and is no poll. Without
// it the stub answers ready at once and no poll is seen: the run of a
// GPU done before the host asked (review/blind15's python-handoff).
func TestLibraryAnswersPendingQueriesWhenAsked(t *testing.T) {
	lib := buildStub(t, "pending.c")
	for _, tc := range []struct {
		env          []string
		out          string
		polls, waits uint64
	}{
		{nil, "spins 0, once ready, stream ready\n", 0, 0},
		{[]string{"LESSONS_STATS_PENDING_QUERIES=1"}, "spins 2, once pending, stream pending\n", 2, 2},
		{[]string{"LESSONS_STATS_PENDING_QUERIES=0"}, "spins 0, once ready, stream ready\n", 0, 0},
		// settled_queries wins: both at once would contradict each other.
		{[]string{"LESSONS_STATS_PENDING_QUERIES=1", "LESSONS_STATS_SETTLED_QUERIES=1"}, "spins 0, once ready, stream ready\n", 0, 0},
	} {
		got, out := lib.run(t, tc.env...)
		if out != tc.out {
			t.Errorf("%v: the program printed %q, want %q", tc.env, out, tc.out)
		}
		s := got.Stats
		if s.HostPolls != tc.polls || s.PollWaits != tc.waits {
			t.Errorf("%v: host_polls %d, poll_waits %d, want %d and %d", tc.env, s.HostPolls, s.PollWaits, tc.polls, tc.waits)
		}
		if s.EventSyncs != 0 || s.StreamSyncs != 0 {
			t.Errorf("%v: event_syncs %d, stream_syncs %d: no wait was made", tc.env, s.EventSyncs, s.StreamSyncs)
		}
	}
}

// A hidden run with pending_queries must not be told from a plain one by
// a query CUDA answers "ready" on any GPU (attack19): an event the host
// waited for (cudaEventSynchronize), an event never recorded, a stream
// the host waited for, a stream given no work. A program that told the
// run could poll in every other run and wait on the GPU in that one
// (review/blind4's poll passing python-handoff's 17-batch run). The
// library answers "not ready" only for work the host has not waited
// for, as a GPU that lags its host may. Round 21: nor by a stream made
// with a destroyed stream's handle (STUB_STREAM_REUSE), the per-thread
// default stream asked by a thread with no work of its own there, an
// interprocess event opened after its maker's host waited for it (or
// never recorded), or a record CUDA refused.
func TestLibraryPendingQueriesCannotBeTold(t *testing.T) {
	lib := buildStub(t, "tellpending.c")
	for _, env := range [][]string{{"STUB_STREAM_REUSE=1"}, {"STUB_STREAM_REUSE=1", "LESSONS_STATS_PENDING_QUERIES=1"}} {
		got, out := lib.run(t, env...)
		if out != "told 0\n" {
			t.Errorf("%v: the program printed %q, want %q: it told the run by a query CUDA answers ready", env, out, "told 0\n")
		}
		if s := got.Stats; s.HostPolls != 0 {
			t.Errorf("%v: host_polls %d: no query was asked again", env, s.HostPolls)
		}
	}
}

// The variables the library takes out of the environment leave nothing
// in the environment block either (/proc/self/environ, the strings on
// the initial stack): their names, left there with their values zeroed,
// told a hidden run's mode (pending_queries, settled_queries, failures)
// to a program that read them (attack19).
func TestLibraryLeavesNoNameOfItsVariables(t *testing.T) {
	lib := buildStub(t, "envresidue.c")
	_, out := lib.run(t, "LESSONS_STATS_PENDING_QUERIES=1")
	if out != "seen 0\n" {
		t.Errorf("the program printed %q, want %q: a variable the library took is still in the environment block", out, "seen 0\n")
	}
}

// A host function (cudaLaunchHostFunc) runs once the work queued before
// it on its stream is done: a write made after the host saw it run (the
// flag it raised) is ordered after that stream's work, and after no other
// stream's. A block handed on after its own stream's function (or a
// cudaStreamAddCallback callback) ran is not a race; one handed on after a function queued on a stream that never
// used it is (review/blind23's block pool, and its refused give-back that
// queued its function first).
func TestLibraryOrdersAfterAHostFunctionThatRan(t *testing.T) {
	lib := buildStub(t, "hostfunc.c")
	got, _ := lib.run(t)
	s := got.Stats
	if s.UnorderedUses != 1 {
		t.Fatalf("unordered_uses %d, want 1 (block Y's write after a function on another stream, not X's or Z's after their own): %s", s.UnorderedUses, s.RaceNote("unordered_uses"))
	}
	if race := s.RaceNote("unordered_uses"); !strings.Contains(race, "at offset 1024") {
		t.Errorf("use_race %q: want the write of block Y (offset 1024)", race)
	}
	if s.DeviceSyncs != 1 || s.StreamSyncs != 0 || s.EventSyncs != 0 {
		t.Errorf("host waits: device %d, stream %d, event %d; want 1, 0, 0 (a host function is no host wait)", s.DeviceSyncs, s.StreamSyncs, s.EventSyncs)
	}
}

// A host function queued on a stream that captures for the runtime and
// not for the library's own count (cudaStreamBeginCaptureToGraph here; a
// driver wait drawing a stream in, on a GPU) becomes a graph's host node.
// The library asks the runtime whether the stream captures and queues the
// program's function as it is: a program that reads the node back and
// calls it tells the tracker nothing, and its write on another stream
// still races the stream's earlier one (corpus-open/hostfn_captured.cu
// passed so: its wrapper, called by the program, hid the race, and a
// second call read a freed HostFnCall). Each call runs the program's
// function.
func TestLibraryIgnoresAHostFunctionCapturedUnseen(t *testing.T) {
	lib := buildStub(t, "hostfn_captured.c")
	got, out := lib.run(t)
	if out != "called 2, ran 2\n" {
		t.Errorf("the program printed %q, want %q: each call of the node's function runs the program's", out, "called 2, ran 2\n")
	}
	if s := got.Stats; s.UnorderedUses != 1 {
		t.Errorf("unordered_uses %d, want 1: the write on the other stream races the captured stream's earlier write (%s)", s.UnorderedUses, s.RaceNote("unordered_uses"))
	}
}
