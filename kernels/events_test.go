package kernels_test

import (
	"path/filepath"
	"testing"
)

// Every exercise whose designs may make events asks leaked_events 0
// (review/blind27: async-pipeline's chain of link events deleted with
// their array but never destroyed, and stream-pools' ready event left
// alive after its waits were queued, passed every check of specs that
// did not ask it). The solution, each right alternative and every blind
// set's correct design of those exercises destroy every event they make
// in the default run, on the stand-in runtime; blind27's two leak.
func TestHarnessesShowEveryEventDestroyed(t *testing.T) {
	h := buildHarnessRig(t)
	for _, x := range []struct {
		exercise, sol, right, file string
		leaks                      []string // blind27's wrong files that leak
	}{
		{"async-pipeline", "solutions/day069/async_pipeline.cu", "solutions/day069/right/async-pipeline", "correct.cu", []string{"review/blind27/async-pipeline/wrong-links-deleted-without-being-destroyed.cu"}},
		{"stream-pools", "solutions/day087/stream_pools.cu", "solutions/day087/right/stream-pools", "correct.cu", []string{"review/blind27/stream-pools/wrong-ready-event-never-destroyed.cu"}},
		{"pool-reuse", "solutions/day069/pool_reuse.cu", "solutions/day069/right/pool-reuse", "correct.cu", nil},
	} {
		t.Run(x.exercise, func(t *testing.T) {
			for i, c := range correctDesigns(t, x.sol, x.right, x.exercise, x.file) {
				prog := h.build(t, x.exercise+"-events-"+string(rune('a'+i%26))+string(rune('a'+i/26)), x.sol, x.sol, c.content)
				s := h.recordFailing(t, prog)
				if s.LeakedEvents != 0 {
					t.Errorf("%s: leaked_events %d (made %d, destroyed %d), want 0", c.name, s.LeakedEvents, s.EventsCreated, s.EventsDestroyed)
				}
			}
			for i, f := range x.leaks {
				prog := h.build(t, x.exercise+"-leaks-"+string(rune('a'+i)), x.sol, x.sol, mustRead(t, filepath.Join("..", f)))
				if s := h.recordFailing(t, prog); s.LeakedEvents == 0 {
					t.Errorf("%s: leaked_events 0 (made %d, destroyed %d), want some", f, s.EventsCreated, s.EventsDestroyed)
				} else {
					t.Logf("%s: leaked_events %d", f, s.LeakedEvents)
				}
			}
		})
	}
}
