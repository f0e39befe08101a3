package kernels_test

import (
	"fmt"
	"testing"
)

// orderFigures runs each of progs with args and gives, by name, its
// record's figures of order (max_unordered_streams, stream_wait_events,
// event_pairs, max_unordered_users), failing the test where a program
// races (an unordered use or free, a use after a free).
func orderFigures(t *testing.T, h harnessRig, progs map[string]string, args []string) map[string][4]uint64 {
	t.Helper()
	got := map[string][4]uint64{}
	for name, prog := range progs {
		s := h.recordFailing(t, prog, args...)
		if s.UnorderedUses != 0 || s.UnorderedFrees != 0 || s.UsesAfterFree != 0 {
			t.Errorf("%s %v: unordered_uses %d (%s), unordered_frees %d, uses_after_free %d: want 0", name, args,
				s.UnorderedUses, s.RaceNote("unordered_uses"), s.UnorderedFrees, s.UsesAfterFree)
		}
		got[name] = [4]uint64{s.MaxUnorderedStreams, s.StreamWaitEvents, s.EventPairs, s.MaxUnorderedUsers}
	}
	t.Logf("%v: max_unordered_streams, stream_wait_events, event_pairs, max_unordered_users: %v", args, got)
	return got
}

// review/blind25's work streams that wait for the chunk before's sums
// before they square the next chunk (kept as unseen, issue 36): the order
// they give the GPU is that of the correct alternative that frees each
// half's squares on its work stream after a wait for the sums
// (right/blind6_squares_freed_back_on_work_streams). The same wait sits
// at the same place of each work stream's order, so in every run of the
// spec the record's statistics of order agree with that alternative's
// (no race, no unordered free, as many waits, as many streams left free
// at once as each operation is queued: 5, the load stream never waiting,
// as in this set's correct design): no check can tell the two apart,
// only why the wait is there. Its event_pairs are 2 fewer: chunk 0's
// wait is on the reduced event before any record of it.
func TestHarnessesShowCrossStreamsWorkWaitingForTheChunkBeforesSums(t *testing.T) {
	h := buildHarnessRig(t)
	const sol = "solutions/day070/cross_stream.cu"
	right := patched(t, sol, "solutions/day070/right/cross-stream/blind6_squares_freed_back_on_work_streams.patch")
	unseen := patched(t, sol, "solutions/day070/unseen/cross-stream/blind25_squares_wait_for_the_previous_chunks_reduce.patch")
	correct := mustRead(t, "../review/blind25/cross-stream/correct.cu")
	progs := map[string]string{
		"right":   h.build(t, "cross25-right", sol, sol, right),
		"unseen":  h.build(t, "cross25-unseen", sol, sol, unseen),
		"correct": h.build(t, "cross25-correct", sol, sol, correct),
	}
	for _, args := range [][]string{nil, {"13", "2"}, {"1", "8"}} {
		got := orderFigures(t, h, progs, args)
		u, r := got["unseen"], got["right"]
		if u[0] != r[0] || u[1] != r[1] || u[2]+2 != r[2] {
			t.Errorf("%v: the unseen port's %v, the alternative's %v: want the same order (2 fewer event pairs)", args, u, r)
		}
		if c := got["correct"]; u[0] != c[0] {
			t.Errorf("%v: max_unordered_streams %d, this set's correct design %d: want the same", args, u[0], c[0])
		}
	}
}

// review/blind26's load stream that waits for the chunk before's last
// square before it allocates the next chunk's values (kept as unseen,
// issue 36): the one edge it adds to the correct order (chunk c + 1's
// generate after chunk c's square of half 1) is in the order of the
// correct alternative that frees the values on the load stream
// (right/free_on_producers), whose load stream waits for both squares of
// chunk c before it frees them and generates chunk c + 1. So every bound
// of an order statistic that fails it fails that alternative first: in
// each of the spec's three runs it leaves at least as many streams free
// at once and queues no more waits, and neither races.
func TestHarnessesShowCrossStreamsLoadWaitingForTheLastSquare(t *testing.T) {
	h := buildHarnessRig(t)
	const sol = "solutions/day070/cross_stream.cu"
	producers := patched(t, sol, "solutions/day070/right/cross-stream/free_on_producers.patch")
	unseen := patched(t, sol, "solutions/day070/unseen/cross-stream/blind26_load_waits_for_the_previous_chunks_last_square.patch")
	correct := mustRead(t, "../review/blind26/cross-stream/correct.cu")
	progs := map[string]string{
		"producers": h.build(t, "cross26-producers", sol, sol, producers),
		"unseen":    h.build(t, "cross26-unseen", sol, sol, unseen),
		"correct":   h.build(t, "cross26-correct", sol, sol, correct),
	}
	for _, args := range [][]string{nil, {"13", "2"}, {"1", "8"}} {
		got := orderFigures(t, h, progs, args)
		u, p := got["unseen"], got["producers"]
		if u[0] < p[0] {
			t.Errorf("%v: max_unordered_streams %d, the producers' alternative %d: want at least as many", args, u[0], p[0])
		}
		if u[1] > p[1] {
			t.Errorf("%v: stream_wait_events %d, the producers' alternative %d: want no more", args, u[1], p[1])
		}
		if c := got["correct"]; u[1] <= c[1] {
			t.Errorf("%v: stream_wait_events %d, this set's correct design %d: want the load stream's waits on top", args, u[1], c[1])
		}
	}
}

// review/blind27's second work stream that waits for half 0's squared
// event before it squares half 1 (issue 36): the two squares of a chunk,
// two readers of disjoint halves of one buffer, are ordered one after the
// other. That set's correct design sums half 0 on the reduce stream as
// soon as half 0 is squared, so that sum takes the place of the lost
// overlap: in each of the spec's three runs the record leaves as many
// streams free at once as the correct design does (the load stream never
// waits) and queues as many waits as the correct alternative that frees
// the values on half 0's stream (right/free_on_first_reader), and with one
// chunk two streams still run kernels at once. max_unordered_users (record
// version 23) sees the order by buffer: 2 in every correct design, the
// solution, each right alternative and each blind correct design, in every
// run (the two reads of the values side by side); 1 in the one-chunk run
// for this port and for blind6's wait queued before its square.
func TestHarnessesShowCrossStreamsSecondHalfWaitingForTheFirst(t *testing.T) {
	h := buildHarnessRig(t)
	const sol = "solutions/day070/cross_stream.cu"
	first := patched(t, sol, "solutions/day070/right/cross-stream/free_on_first_reader.patch")
	port := patched(t, sol, "solutions/day070/wrong/cross-stream/blind27_second_half_waits_for_the_first_before_squaring.patch")
	correct := mustRead(t, "../review/blind27/cross-stream/correct.cu")
	progs := map[string]string{
		"first":   h.build(t, "cross27-first", sol, sol, first),
		"port":    h.build(t, "cross27-port", sol, sol, port),
		"correct": h.build(t, "cross27-correct", sol, sol, correct),
	}
	runs := [][]string{nil, {"13", "2"}, {"1", "8"}}
	for _, args := range runs {
		got := orderFigures(t, h, progs, args)
		u, c, f := got["port"], got["correct"], got["first"]
		if u[0] != c[0] {
			t.Errorf("%v: max_unordered_streams %d, this set's correct design %d: want the same", args, u[0], c[0])
		}
		if u[1] != f[1] || u[2] != f[2] {
			t.Errorf("%v: waits %v, the first reader's alternative %v: want as many", args, u[1:3], f[1:3])
		}
		if len(args) == 2 && args[0] == "1" && u[3] != 1 {
			t.Errorf("%v: max_unordered_users %d, want 1 (the two reads of the values ordered)", args, u[3])
		}
	}

	// Every correct design leaves the two reads side by side, in every run;
	// blind6's wait before the square orders them, as the port's does.
	others := correctDesigns(t, sol, "solutions/day070/right/cross-stream", "cross-stream", "correct.cu")
	others = append(others, correctProgram{"blind6", patched(t, sol, "solutions/day070/wrong/cross-stream/blind6_second_half_waits_before_its_square.patch"), false})
	for i, o := range others {
		name := o.name
		prog := h.build(t, fmt.Sprintf("cross27-%d", i), sol, sol, o.content)
		for _, args := range runs {
			s := h.recordFailing(t, prog, args...)
			if name == "blind6" {
				if len(args) == 2 && args[0] == "1" && s.MaxUnorderedUsers != 1 {
					t.Errorf("blind6 %v: max_unordered_users %d, want 1", args, s.MaxUnorderedUsers)
				}
				continue
			}
			if s.MaxUnorderedUsers < 2 {
				t.Errorf("%s %v: max_unordered_users %d, want at least 2 (the halves' reads side by side)", name, args, s.MaxUnorderedUsers)
			}
		}
	}
	t.Logf("%d correct designs and blind6 measured", len(others)-1)
}
