package grade

import (
	"context"

	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/machine"
)

// Local is a grade on this machine, assembled: nvcc and the GPUs found,
// the statistics library building, a sandbox, the runs per GPU chosen
// and the toolchain with the hardware queues chosen. Close it.
type Local struct {
	Toolchain Pipeline
	Sandbox   *exercise.Sandbox
	Choice    Choice
	Devices   []string // as CUDA_VISIBLE_DEVICES names them
	Jobs      int      // builds at once
	Timed     []string // the timed exercises, alone on their GPU
	lib       chan error
}

// NewLocal assembles a local grade of tasks: jobs builds at once, perGPU
// runs at once on each GPU and queues hardware queues each (0: chosen
// from the tasks). The statistics library builds while ctx lasts,
// beside the class's files; the first run waits for it.
func NewLocal(ctx context.Context, tasks []*Task, jobs, perGPU, queues int) (*Local, error) {
	m, err := machine.Need(ctx, "grade")
	if err != nil {
		return nil, err
	}
	tk := exercise.ToolkitFor(m)
	l := &Local{lib: make(chan error, 1), Devices: machine.Devices(len(m.Info.Devices))}
	l.Timed, _ = Timed(tasks)
	l.Choice = ChooseFor(perGPU, queues, tasks)
	// Each worker has users of its own in a stride of 64.
	l.Jobs = min(max(jobs, 1), exercise.MaxSlots)
	if len(l.Devices)*l.Choice.PerDevice > exercise.MaxSlots {
		if perGPU != 0 {
			return nil, failure.Usagef("%d GPUs × --per-gpu %d is more than %d runs at once", len(l.Devices), perGPU, exercise.MaxSlots)
		}
		l.Choice.PerDevice = max(1, exercise.MaxSlots/len(l.Devices))
	}
	if l.Sandbox, err = exercise.TempSandbox("lessons-grade-"); err != nil {
		return nil, err
	}
	go func() {
		_, err := tk.StatsLibrary(ctx)
		l.lib <- err
	}()
	l.Toolchain = l.Choice.Pipeline(tk, l.Sandbox)
	return l, nil
}

// Options are the options of Grade for this grade.
func (l *Local) Options() Options {
	return Options{Jobs: l.Jobs, Devices: l.Devices, PerDevice: l.Choice.PerDevice}
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

// Close removes the sandbox's scratch folders.
func (l *Local) Close() { l.Sandbox.Close() }
