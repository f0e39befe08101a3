package checker

import (
	"bytes"
	"strings"
	"testing"
)

// traceRun makes a channel's bytes: a start, n trace frames of the given
// events each, then an end unless cut.
func traceRun(t *testing.T, n int, events []byte, end bool) []byte {
	t.Helper()
	g := &Guard{RuntimeCopies: 1}
	var out [][]byte
	f, _ := EncodeFrame(testKey, 0, FrameStart, &Stats{}, g)
	out = append(out, f)
	for i := 0; i < n; i++ {
		f, err := EncodeTraceFrame(testKey, uint64(len(out)), events, g)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	if end {
		f, _ = EncodeFrame(testKey, uint64(len(out)), FrameEnd, &Stats{Exited: 1}, g)
		out = append(out, f)
	}
	return join(out...)
}

func TestChannelKeepsTheTrace(t *testing.T) {
	ev := bytes.Repeat([]byte{1, 2, 3, 4, 5, 6, 7, 8}, 5*10)
	r, err := verifyFrames(traceRun(t, 3, ev, true), testKey)
	if err != nil {
		t.Fatal(err)
	}
	if want := bytes.Repeat(ev, 3); !bytes.Equal(r.Trace, want) {
		t.Fatalf("trace: %d bytes, want %d", len(r.Trace), len(want))
	}
	if r.Stats == nil || r.Stats.Exited != 1 {
		t.Fatalf("the end's record was lost among the trace frames: %+v", r.Stats)
	}
}

func TestChannelWithoutTraceHasNone(t *testing.T) {
	r, err := verifyFrames(traceRun(t, 0, nil, true), testKey)
	if err != nil || r.Trace != nil {
		t.Fatalf("got %v, %d bytes of trace", err, len(r.Trace))
	}
}

func TestChannelRefusesATraceSignedWithAnotherKey(t *testing.T) {
	data := traceRun(t, 1, make([]byte, 40), true)
	other := bytes.Repeat([]byte{9}, KeySize)
	forged, _ := EncodeTraceFrame(other, 1, make([]byte, 40), &Guard{RuntimeCopies: 1})
	// The library's trace frame replaced by one the program signed itself.
	start, _ := EncodeFrame(testKey, 0, FrameStart, &Stats{}, &Guard{RuntimeCopies: 1})
	data = append(append(start, forged...), data[2*len(start)+len(forged)-len(start):]...)
	if _, err := verifyFrames(data, testKey); err == nil || !strings.Contains(err.Error(), "not signed") {
		t.Fatalf("a forged trace frame verified: %v", err)
	}
}

func TestChannelRefusesMoreTraceThanTheLibrarySends(t *testing.T) {
	per := 97 * 40 // the library's most events in a frame (kernels/timeline.h), 40 bytes each
	n := MaxTrace/per + 1
	_, err := verifyFrames(traceRun(t, n, make([]byte, per), true), testKey)
	if err == nil || !strings.Contains(err.Error(), "more trace") {
		t.Fatalf("got %v", err)
	}
}
