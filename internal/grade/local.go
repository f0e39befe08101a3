package grade

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/rig"
)

// Local is a grade on this machine, assembled: its rig (nvcc and the
// GPUs found, the sandbox), the statistics library building, the runs
// per GPU chosen and the toolchain with the hardware queues chosen.
// Close it.
type Local struct {
	Toolchain Pipeline
	Sandbox   *exercise.Sandbox
	Choice    Choice
	Devices   []string // as CUDA_VISIBLE_DEVICES names them
	Jobs      int      // builds at once
	Timed     []string // the timed exercises, alone on their GPU
	lib       chan error
	rig       *rig.Rig
	// stop ends the statistics library's build, built waits for it.
	stop  context.CancelFunc
	built chan struct{}
}

// NewLocal assembles a local grade of tasks on a grader's rig: jobs
// builds at once, perGPU runs at once on each GPU and queues hardware
// queues each (0: chosen from the tasks). The statistics library builds
// while ctx lasts, beside the class's files; the first run waits for it.
func NewLocal(ctx context.Context, tasks []*Task, jobs, perGPU, queues int) (*Local, error) {
	r, err := rig.Grader(ctx, "grade", "lessons-grade-")
	if err != nil {
		return nil, err
	}
	l, err := LocalOn(ctx, r, tasks, jobs, perGPU, queues)
	if err != nil {
		r.Close()
	}
	return l, err
}

// LocalOn is NewLocal on rig r (a grader's, or a build node's for a
// class server whose runs are all on the nodes), which Close closes.
func LocalOn(ctx context.Context, r *rig.Rig, tasks []*Task, jobs, perGPU, queues int) (*Local, error) {
	l := &Local{lib: make(chan error, 1), Devices: r.Devices(), Sandbox: r.Sandbox, rig: r}
	l.Timed, _ = Timed(tasks)
	l.Choice = ChooseFor(perGPU, queues, tasks)
	l.Choice.Spread(len(l.Devices), perGPU != 0)
	// Each worker has users of its own in a stride of 64.
	l.Jobs = min(max(jobs, 1), exercise.MaxSlots)
	if len(l.Devices)*l.Choice.PerDevice > exercise.MaxSlots {
		if perGPU != 0 {
			return nil, failure.Usagef("%d GPUs × --per-gpu %d is more than %d runs at once", len(l.Devices), perGPU, exercise.MaxSlots)
		}
		l.Choice.PerDevice = max(1, exercise.MaxSlots/len(l.Devices))
	}
	tk := r.Toolkit
	ctx, l.stop = context.WithCancel(ctx)
	l.built = make(chan struct{})
	go func() {
		defer close(l.built)
		_, err := tk.StatsLibrary(ctx)
		l.lib <- err
	}()
	l.Toolchain = l.Choice.Pipeline(tk, r.Sandbox)
	return l, nil
}

// Witness says whether runs' records are compared with what the kernel
// counts of their CUDA calls (the outside witness), and why not: the
// words of a start line ("" on a rig that runs nothing).
func (l *Local) Witness() string { return l.rig.Witness }

// KeepTraces, when on, asks each run for its trace, kept with its
// attempt in the gradebook (grade feedback draws it).
func (l *Local) KeepTraces(on bool) {
	l.Toolchain.Trace = on
}

// Options are the options of Grade for this grade.
func (l *Local) Options() Options {
	return Options{Jobs: l.Jobs, Devices: l.Devices, PerDevice: l.Choice.PerDevice, Machine: l.Choice.Machine}
}

// LibraryErr is why the statistics library could not be built, once its
// build has ended; nil before, or when it built.
func (l *Local) LibraryErr() error {
	select {
	case err := <-l.lib:
		l.lib <- err
		return err
	default:
		return nil
	}
}

// Close stops the statistics library's build if it still runs, and
// closes the rig: the sandbox's scratch folders, the witness.
func (l *Local) Close() {
	if l.stop != nil {
		l.stop()
		<-l.built
	}
	l.rig.Close()
}

// Run grades tasks into book (again those already graded on the same
// file and spec when regrade is set), done told of each file, and writes
// the trace of its builds and runs to traceFile when that is not "" (a
// trace that cannot be written is told to warn). The summary is nil when
// nothing was graded, or when the statistics library did not build (every
// run would fail for it: the error says why, once).
func (l *Local) Run(ctx context.Context, book *gradebook.Book, tasks []*Task, regrade bool, traceFile string, done func(*gradebook.Attempt, bool), warn func(string)) (*Summary, error) {
	opts := l.Options()
	opts.Regrade, opts.Done = regrade, done
	if traceFile != "" {
		// Written as each span ends: a grade stopped half way keeps
		// the trace of what it did.
		if fh, terr := os.Create(traceFile); terr != nil {
			warn(fmt.Sprintf("lessons: the trace: %v (the grade goes on without it)", terr))
		} else {
			opts.Trace = NewTrace(fh)
			defer func() {
				if terr := errors.Join(opts.Trace.Close(), fh.Close()); terr != nil {
					warn(fmt.Sprintf("lessons: the trace %s: %v", traceFile, terr))
				}
			}()
		}
	}
	sum, err := Grade(ctx, book, tasks, l.Toolchain, opts)
	if sum == nil {
		return nil, err
	}
	if lerr := l.LibraryErr(); lerr != nil && ctx.Err() == nil {
		return nil, lerr
	}
	return sum, err
}
