package kernels_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Decoys that push the waited event out of an export send's list
// (review27): a send lists at most kSendEvents of the sender's shared
// events, those covering the block first, and a wait on an event left out
// judged nothing. A program whose `filled` is recorded after the send (a
// stale wait every round) hid every one of them by sharing more events:
// 32 recorded behind the fill (they cover the block, so they fill the
// list and `filled` is left out), or 40 never recorded (the list is full
// of uncovered events, `filled` among the left out in the map's order).
// The send says now how many it left out, and a wait on an event absent
// from a send that left some out is judged by when its handle was taken
// (ipcTakes, shared by the run's processes): taken before the send and
// not destroyed by then, and not among the covering ones listed, it did
// not cover the block.
func TestHarnessesShowStaleWaitsBehindDecoyEvents(t *testing.T) {
	h := buildHarnessRig(t)
	sol := "solutions/day073/ipc_pool.cu"
	correct := string(mustRead(t, filepath.Join("..", "review", "blind24", "ipc-pool", "correct.cu")))
	const record, send = blind24IPCRecord, blind24IPCSend
	const handles = "    if (!send_all(sock, handles, rounds * sizeof(RoundHandles))) { fprintf(stderr, \"exporter: the event handles were not sent\\n\"); return 1; }\n"
	for _, s := range []string{record, send, handles} {
		if !strings.Contains(correct, s) {
			t.Fatalf("review/blind24/ipc-pool/correct.cu: %q not found", s)
		}
	}
	decoys := func(n int, recorded bool) string {
		src := strings.Replace(correct, handles, handles+fmt.Sprintf(
			"    cudaEvent_t decoy[%d];\n    for (int d = 0; d < %d; d++) {\n        cudaIpcEventHandle_t dh;\n        CHECK(cudaEventCreateWithFlags(&decoy[d], cudaEventInterprocess | cudaEventDisableTiming));\n        CHECK(cudaIpcGetEventHandle(&dh, decoy[d]));\n    }\n", n, n), 1)
		round := ""
		if recorded {
			round = fmt.Sprintf("        for (int d = 0; d < %d; d++) CHECK(cudaEventRecord(decoy[d], s));\n", n)
		}
		return strings.Replace(strings.Replace(src, record, round, 1), send, send+record, 1)
	}
	ps := []struct {
		name string
		src  string
		want uint64
	}{
		{"32 decoys recorded behind the fill, filled after the send", decoys(32, true), 5},
		{"40 decoys never recorded, filled after the send", decoys(40, false), 5},
		{"32 decoys recorded behind the fill, filled before the send", strings.Replace(decoys(32, true), send+record, record+send, 1), 0},
	}
	for i, p := range ps {
		prog := h.build(t, fmt.Sprintf("decoy73-%d", i), sol, sol, []byte(p.src))
		got, out := h.recordAll(t, prog, nil, "5", "8")
		if got.Children == nil {
			t.Fatalf("%s: no record of the child\n%s", p.name, out)
		}
		n := got.Stats.StaleIPCWaits + got.Children.StaleIPCWaits
		t.Logf("%s [5 8]: stale_ipc_waits %d", p.name, n)
		if n != p.want {
			t.Errorf("%s [5 8]: stale_ipc_waits %d, want %d\n%s", p.name, n, p.want, out)
		}
	}
}
