package verify

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/rig"
	"github.com/cudalessons/lessons/internal/ui"
	"github.com/cudalessons/lessons/internal/workspace"
)

// Machine finds what verifying needs here, nvcc and (unless compileOnly)
// a GPU, and the toolkit that judges with them; what is missing is a
// *failure.Tool that says what to do.
func Machine(ctx context.Context, compileOnly bool) (*machine.Machine, *exercise.Toolkit, error) {
	r, err := rig.Author(ctx, compileOnly)
	if err != nil {
		return nil, nil, err
	}
	return r.Machine, r.Toolkit, nil
}

// CourseOptions say how to verify a course: Jobs builds at once, PerGPU
// runs at once on each GPU with Queues hardware queues (0: chosen from
// what the course runs).
type CourseOptions struct {
	CompileOnly          bool
	Jobs, PerGPU, Queues int
	// Note is told, before the runs, what runs where and why.
	Note func(string)
}

// Course verifies course c on machine m with tk: every lesson, solution
// and untouched exercise built, and run unless compile-only. Each item
// says what came.
func Course(ctx context.Context, c *course.Course, m *machine.Machine, tk *exercise.Toolkit, o CourseOptions) ([]*Item, error) {
	if !o.CompileOnly {
		// The statistics library builds beside the course; the first run
		// of an exercise waits for it if it is not done.
		go tk.StatsLibrary(ctx)
	}
	choice := Choose(c, o.PerGPU, o.Queues)
	// Lessons keep CUDA's queues unless a flag says: what they print
	// about streams and timings is what a student sees.
	m.Queues = choice.TimedQueues
	items, err := Items(c, Options{Root: filepath.Join(c.Root, ".lessons", "verify"), CompileOnly: o.CompileOnly, Toolkit: tk, Choice: choice,
		LessonEnv: func(ws string) (notebook.Env, error) { return workspace.Env(m, m.Compiler(), ws) }})
	if err != nil {
		return nil, err
	}
	devices := []string{"0"} // compile-only: no runs
	if !o.CompileOnly {
		devices = machine.Devices(len(m.Info.Devices))
	}
	slots := choice.SlotsOn(devices, o.Jobs, o.PerGPU != 0)
	if !o.CompileOnly {
		o.Note(fmt.Sprintf("Verifying %s: builds on %d cores, runs on %d GPU(s), %d at a time on each%s.",
			ui.Count(len(items), "item"), max(o.Jobs, 1), len(devices), choice.PerDevice, choice.Chosen()))
	}
	return items, Run(ctx, items, slots)
}
