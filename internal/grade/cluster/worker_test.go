package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/gradebook"
)

// A program killed by the signal that cancels its Slurm task is no
// verdict: its attempt is dropped, and the item is graded again.
func TestCancelledWith(t *testing.T) {
	killed := &gradebook.Attempt{Status: gradebook.Failed, Checks: []gradebook.Check{{Name: "ends by itself", Got: "killed by signal 15 (terminated)"}}}
	passed := &gradebook.Attempt{Status: gradebook.Passed, Checks: []gradebook.Check{{Name: "exits", Passed: true}}}

	never := make(chan time.Time) // the grace does not end
	over := make(chan time.Time)
	close(over) // the grace is over
	ctx, cancel := context.WithCancel(context.Background())
	if cancelledWith(ctx, passed, never) {
		t.Error("a passed attempt of a running task was dropped")
	}
	// The task's signal comes while the killed program's attempt waits.
	go cancel()
	if !cancelledWith(ctx, killed, never) {
		t.Error("a program killed as its task was cancelled was kept")
	}
	if !cancelledWith(ctx, passed, never) {
		t.Error("an attempt that ends after the cancellation was kept")
	}
	if cancelledWith(context.Background(), killed, over) {
		t.Error("a program killed by a signal, with no cancellation, was dropped")
	}
}
