package grade

import (
	"context"
	"time"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/exercise"
)

// Work is what one item of a batch does: build a program, then run it.
type Work struct {
	// Name and Args label the item's spans in the trace.
	Name string
	Args map[string]string
	// Timed items' runs have their GPU to themselves.
	Timed bool
	// Group is whose item it is (Item.Group).
	Group string
	// GPUs is how many GPUs a run needs (0: one).
	GPUs int
	// Build builds on a build slot. The program is run only when it
	// built (no Err, no Failed).
	Build func(ctx context.Context, slot int) *Built
	// Run runs what Build made on device (as CUDA_VISIBLE_DEVICES names
	// it), on a run slot of its own; nil: the item only builds.
	Run func(ctx context.Context, b *Built, device string, slot int) (*Ran, error)
}

// Outcome is what came of an item's work.
type Outcome struct {
	Built *Built
	// Ran is the judged run; nil when there was none (it did not build,
	// the item only builds, or the run's tool failed: RunErr).
	Ran    *Ran
	RunErr error
	// Took is the build's time and the run's, the wait between them
	// left out.
	Took time.Duration
	// Again is why the run judged was made a second time, alone on the
	// machine: how the first ended ("" when it was run once).
	Again string
	// NotAgain says why a run that asked to be made again alone was
	// judged as it came instead ("" when it was not).
	NotAgain string
	// RunTook is the wall time of the item's runs (made again included),
	// the sanitizers' and the hidden runs' with them.
	RunTook time.Duration
}

// Err is the tool's failure, the build's or the run's: not the program's.
func (o Outcome) Err() error {
	if o.Built.Err != nil {
		return o.Built.Err
	}
	return o.RunErr
}

// Results are the checks judged: the failed "compiles" check of a file
// that did not build, or the run's.
func (o Outcome) Results() []checker.Result {
	if o.Ran != nil {
		return o.Ran.Results
	}
	return o.Built.Failed
}

// NewItem is the one way an item of a batch is made, whatever it builds
// (a grade's task, here or on a cluster's node; verify's solutions,
// exercises and lessons; a mutant; a wrong answer): w's build on a build
// slot and, when it gave a program, w's run on a GPU. done (nil: no one
// is told) hears what came of it once, unless ctx ended first: nothing
// half done is judged.
func NewItem(w Work, done func(Outcome)) *Item {
	var b *Built
	var took time.Duration
	tell := func(o Outcome) {
		if done != nil {
			o.Built, o.Took = b, took
			done(o)
		}
	}
	it := &Item{Name: w.Name, Args: w.Args, Timed: w.Timed, Group: w.Group, GPUs: w.GPUs}
	it.Build = func(ctx context.Context, slot int) (bool, string) {
		start := time.Now()
		b = w.Build(ctx, slot)
		took = time.Since(start)
		outcome := buildOutcome(b)
		if ctx.Err() != nil {
			return false, outcome
		}
		if b.Err != nil || b.Failed != nil || w.Run == nil || b.NoRun != "" {
			tell(Outcome{})
			return false, outcome
		}
		return true, outcome
	}
	if w.Run != nil {
		var first string // why the first run is made again
		var firstRan *Ran
		var runTook time.Duration
		it.Settle = func(why string) {
			tell(Outcome{Ran: firstRan, NotAgain: why, RunTook: runTook})
		}
		it.Run = func(ctx context.Context, device string, slot int, alone bool) (time.Duration, string) {
			start := time.Now()
			ran, err := w.Run(ctx, b, device, slot)
			took += time.Since(start)
			runTook += time.Since(start)
			if ctx.Err() != nil {
				return 0, "" // stopped half way: its verdict means nothing
			}
			var ranTook time.Duration
			if ran != nil {
				ranTook = max(ran.Took, time.Nanosecond)
			}
			// Stopped while waiting in the GPU's driver beside other
			// runs: the hang may be the machine's. Failed only checks of
			// figures other runs can change (how many streams ran at
			// once, how long the kernels took): the load may be at
			// fault. Either way, judged on a run alone.
			if err == nil && ran != nil && !alone {
				why := ran.Stalled
				if why == "" {
					why = checker.FailedOnLoad(ran.Results)
				}
				if why != "" {
					first, firstRan = why, ran
					return ranTook, first
				}
			}
			tell(Outcome{Ran: ran, RunErr: err, Again: first, RunTook: runTook})
			if alone && ran != nil {
				return ranTook, ran.Stalled // still stalled: the group's others are not made again
			}
			return ranTook, ""
		}
		it.Unrun = func(err error) { tell(Outcome{RunErr: err}) }
	}
	return it
}

// buildOutcome is what the trace says came of a build; "" for one that
// another item made (no span is drawn).
func buildOutcome(b *Built) string {
	switch {
	case b.shared:
		return ""
	case b.Err != nil:
		return "tool failed: " + b.Err.Error()
	case b.Failed != nil:
		return "does not compile"
	case b.NoRun != "":
		return "built, not run: " + b.NoRun
	}
	return "built"
}

// Judge runs a built program and judges it: exercise.RunAll (every
// check), exercise.Kill (until one fails, for a mutant), or
// exercise.Until (until an expected failure, for a wrong answer).
type Judge func(ctx context.Context, tk *exercise.Toolkit, r exercise.Runner, j *exercise.Job, prog, device string, slot int) (*exercise.Verdict, error)

// JobWork is the work of the exercise pipeline's job j in runner r, with
// tk's tools: built, then run and judged by judge (nil: only built).
func JobWork(name string, tk *exercise.Toolkit, r exercise.Runner, j *exercise.Job, judge Judge) Work {
	w := Work{Name: name, Timed: j.Spec.Timed, GPUs: j.Spec.GPUs, Build: func(ctx context.Context, slot int) *Built {
		return buildJob(ctx, tk, r, j, slot)
	}}
	if judge != nil {
		w.Run = func(ctx context.Context, b *Built, device string, slot int) (*Ran, error) {
			return runJob(ctx, judge, tk, r, j, b, device, slot)
		}
	}
	return w
}

func buildJob(ctx context.Context, tk *exercise.Toolkit, r exercise.Runner, j *exercise.Job, slot int) *Built {
	start := time.Now()
	b, err := exercise.Build(ctx, tk, r, j, slot)
	if err != nil {
		return &Built{Err: err, Took: time.Since(start)}
	}
	return &Built{Prog: b.Prog, Failed: b.Failed, Took: b.Took}
}

func runJob(ctx context.Context, judge Judge, tk *exercise.Toolkit, r exercise.Runner, j *exercise.Job, b *Built, device string, slot int) (*Ran, error) {
	v, err := judge(ctx, tk, r, j, b.Prog, device, slot)
	if err != nil {
		return nil, err
	}
	return &Ran{Results: v.Results, Output: v.Output, Outputs: v.Outputs, Took: v.Took, Stalled: v.Stalled, Trace: v.Trace, Started: v.Started, Unwitnessed: v.Unwitnessed}, nil
}
