package kernels_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// More interprocess events than an export send lists (review/blind24,
// session 27): its correct ipc-pool design makes a pair of events for
// every round before the rounds (10 for the public run's 5 rounds, 18 for
// the hidden run's 9) and takes all their handles first. The library
// listed, at each send of a block's export data, the first 8 of the
// sender's shared events in its map's order (the latest made first), so
// round 0's `filled` was left out of round 0's send: the child's wait on
// it judged nothing, round 0's import stayed unjudged, and round 1's wait
// on `filled[1]` (listed at round 0's send, not yet recorded) judged it
// stale: stale_ipc_waits 1 on the H200, in the public run. A send lists
// the events that cover the block first now, then the others, up to 32.
// blind24's correct design, and its wrong ones that share its events and
// are wrong for other reasons, read 0 (in 40 rounds too, 80 events); the
// same design with each round's record moved after the send reads one a
// round.
func TestHarnessesShowNoStaleWaitAmongManyEvents(t *testing.T) {
	h := buildHarnessRig(t)
	sol := "solutions/day073/ipc_pool.cu"
	read := func(path string) []byte { return mustRead(t, filepath.Join("..", path)) }
	correct := read("review/blind24/ipc-pool/correct.cu")
	const record, send = blind24IPCRecord, blind24IPCSend
	if !strings.Contains(string(correct), record+"        cudaMemPoolPtrExportData data;\n        CHECK(cudaMemPoolExportPointer(&data, block));\n"+send) {
		t.Fatal("review/blind24/ipc-pool/correct.cu: its record, export and send not found")
	}
	late := strings.Replace(strings.Replace(string(correct), record, "", 1), send, send+record, 1)
	type program struct {
		name       string
		content    []byte
		stalePerRd bool // one stale wait a round; else none
	}
	ps := []program{
		{"review/blind24/ipc-pool/correct.cu", correct, false},
		{"review/blind24/ipc-pool/wrong-free-queued-before-the-wait-on-freed.cu", read("review/blind24/ipc-pool/wrong-free-queued-before-the-wait-on-freed.cu"), false},
		{"review/blind24/ipc-pool/wrong-round-events-never-destroyed-by-the-parent.cu", read("review/blind24/ipc-pool/wrong-round-events-never-destroyed-by-the-parent.cu"), false},
		{"blind24's correct.cu, each round's record after its send", []byte(late), true},
	}
	for i, p := range ps {
		prog := h.build(t, "many73-"+string(rune('a'+i)), sol, sol, p.content)
		runs := []string{"5", "9"}
		if !p.stalePerRd {
			// 80 events, more than a send lists: the one that covers
			// the block is listed first.
			runs = append(runs, "40")
		}
		for _, rounds := range runs {
			got, out := h.recordAll(t, prog, nil, rounds, "8")
			if got.Children == nil {
				t.Fatalf("%s: no record of the child\n%s", p.name, out)
			}
			n := got.Stats.StaleIPCWaits + got.Children.StaleIPCWaits
			t.Logf("%s [%s 8]: stale_ipc_waits %d", p.name, rounds, n)
			want := uint64(0)
			if p.stalePerRd {
				want = uint64(rounds[0] - '0')
			}
			if n != want {
				t.Errorf("%s [%s 8]: stale_ipc_waits %d, want %d\n%s", p.name, rounds, n, want, out)
			}
		}
	}
}

// blind24IPCRecord and blind24IPCSend are review/blind24's correct
// ipc-pool design's record of a round's `filled` event and its send of
// the round's export data, which the tests of many events and of decoys
// move one after the other.
const (
	blind24IPCRecord = "        CHECK(cudaEventRecord(roundFilled[r], s));\n"
	blind24IPCSend   = "        if (!send_all(sock, &data, sizeof data)) { fprintf(stderr, \"exporter: round %d's block was not sent\\n\", r); return 1; }\n"
)
