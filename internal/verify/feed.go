package verify

import (
	"context"
	"sync"
	"time"

	"github.com/cudalessons/lessons/internal/author"
	"github.com/cudalessons/lessons/internal/grade"
)

// replayFeed hands a batch's builds out to grade.Schedule: each item
// that becomes ready during the batch (a replay mutant, once its
// solution's runs are recorded) to the next free build slot, before any
// item not yet built; the others (rest) in their order. The batch waits
// for no solution but the one a replay mutant is made of, and for no
// other mutant's end.
type replayFeed struct {
	mu   sync.Mutex
	rest []*grade.Item
	// ready is told once for each item made during the batch: a func
	// that makes it on the build slot (nil: none after all).
	ready chan func() *grade.Item
}

// items are n items for grade.Schedule, each the next of the feed when
// its build begins: len(rest), and one for each send on ready.
func (f *replayFeed) items(n int) []*grade.Item {
	out := make([]*grade.Item, n)
	for i := range out {
		out[i] = f.item()
	}
	return out
}

// next is the item a build slot takes now: one ready, else the first of
// rest, else (rest all taken) the next to be ready. nil: none (a replay
// not made in the batch, or ctx done).
func (f *replayFeed) next(ctx context.Context) *grade.Item {
	select {
	case mk := <-f.ready:
		return mk()
	default:
	}
	f.mu.Lock()
	if len(f.rest) > 0 {
		it := f.rest[0]
		f.rest = f.rest[1:]
		f.mu.Unlock()
		return it
	}
	f.mu.Unlock()
	select {
	case mk := <-f.ready:
		return mk()
	case <-ctx.Done():
		return nil
	}
}

// item stands for the item next gives when its build begins: it takes
// that one's name, GPUs and runs.
func (f *replayFeed) item() *grade.Item {
	var in *grade.Item
	it := &grade.Item{}
	it.Build = func(ctx context.Context, slot int) (bool, string) {
		if in = f.next(ctx); in == nil {
			return false, ""
		}
		// Read by the scheduler only after the build.
		it.Name, it.Args, it.Timed, it.Group, it.GPUs = in.Name, in.Args, in.Timed, in.Group, in.GPUs
		run, outcome := in.Build(ctx, slot)
		return run && in.Run != nil, outcome
	}
	it.Run = func(ctx context.Context, device string, slot int, alone bool) (time.Duration, string) {
		return in.Run(ctx, device, slot, alone)
	}
	it.Settle = func(why string) {
		if in.Settle != nil {
			in.Settle(why)
		}
	}
	it.Unrun = func(err error) {
		if in.Unrun != nil {
			in.Unrun(err)
		}
	}
	return it
}

// replayItem is the item of t's replay mutant, made of its solution's
// recorded runs (nil: it has none); it is t.replay. t's mutants are made
// with the runs here, on the build slot, not after the batch.
func (j *mutantJudge) replayItem(t *mutantTarget, runs []author.RecordedRun, mu *sync.Mutex) *grade.Item {
	t.mutants = author.Mutants(t.src, runs, t.others...)
	for _, mt := range t.mutants {
		if mt.Op == "replay" {
			t.replay = &mutantOutcome{o: &author.Outcome{Exercise: t.x.ID, Mutant: mt}}
			return j.item(t, t.replay, mu)
		}
	}
	return nil
}

// onAgain has it tell f when its run asks to be made again alone, after
// every other run of the batch.
func onAgain(it *grade.Item, f func()) {
	run := it.Run
	it.Run = func(ctx context.Context, device string, slot int, alone bool) (time.Duration, string) {
		took, again := run(ctx, device, slot, alone)
		if again != "" {
			f()
		}
		return took, again
	}
}
