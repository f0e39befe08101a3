package grade

import (
	"context"
	"slices"

	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/machine"
)

// Pipeline is the Toolchain of a real grade: each task built and run by
// the exercise pipeline, in Runner (the sandbox).
type Pipeline struct {
	Toolkit *exercise.Toolkit
	Runner  exercise.Runner
	// Env is added to the environment of an untimed exercise's runs,
	// TimedEnv to a timed one's (CUDA_DEVICE_MAX_CONNECTIONS: fewer
	// hardware queues start CUDA faster, but may change timings).
	Env, TimedEnv []string
	// Trace asks each run for its trace (internal/timeline), kept with
	// its attempt in the gradebook (grade --timeline).
	Trace bool
}

var _ Toolchain = Pipeline{}

// Job is the exercise pipeline's job of a task.
func (p Pipeline) Job(t *Task) *exercise.Job {
	files := []exercise.File{{Name: t.SourceName, Data: t.Source}}
	for _, f := range t.Files {
		files = append(files, exercise.File{Name: f.Name, Data: f.Data})
	}
	env := p.Env
	if t.Spec.Timed {
		env = p.TimedEnv
	}
	return &exercise.Job{ID: t.Exercise.ID, Spec: t.Spec, Files: files, Hash: t.SourceHash, Env: slices.Clip(env), Trace: p.Trace}
}

// Build builds a task's files.
func (p Pipeline) Build(ctx context.Context, t *Task, slot int) *Built {
	return buildJob(ctx, p.Toolkit, p.Runner, p.Job(t), slot)
}

// Run runs a task's program on device and judges it.
func (p Pipeline) Run(ctx context.Context, t *Task, b *Built, device string, slot int) (*Ran, error) {
	return runJob(ctx, exercise.RunAll, p.Toolkit, p.Runner, p.Job(t), b, device, slot)
}

// Env is the environment of a program run with this choice: the hardware
// queues chosen for a timed program, or for an untimed one.
func (c Choice) Env(timed bool) []string {
	if timed {
		return machine.QueuesEnv(c.TimedQueues)
	}
	return machine.QueuesEnv(c.Queues)
}

// Pipeline is the Toolchain of a grade with this choice: tk's tools in
// runner, each program with the hardware queues chosen for it.
func (c Choice) Pipeline(tk *exercise.Toolkit, runner exercise.Runner) Pipeline {
	return Pipeline{Toolkit: tk, Runner: runner, Env: c.Env(false), TimedEnv: c.Env(true)}
}
