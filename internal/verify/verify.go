// Package verify proves a course works, as its author must before
// students get it: every solution passes all its checks, every untouched
// exercise compiles and fails at least one, and every lesson's runnable
// cells run. Its items are built and run by grade's one scheduler.
package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/safefs"
)

// Item is one line of the verify table: a lesson, a solution or an
// untouched exercise, what is expected of it and what came.
type Item struct {
	Kind, Name, Want string
	OK               bool
	// Skipped: not run here (it needs more GPUs than the machine has);
	// OK, and counted apart, never as a pass.
	Skipped bool
	Got     string // "" until something is said: ok
	note    string // what "ok" says more (how Python cells ran)
	Took    time.Duration
	// work is the item's build and run (no run in compile-only mode);
	// judge says what went wrong with what came of it (nil: the tool's
	// failure, if any).
	work  grade.Work
	judge func(grade.Outcome) error
}

// steps are the work of an item whose build and run say only what went
// wrong (a lesson's cells).
func steps(build func(ctx context.Context) error, run func(ctx context.Context, device string) error) grade.Work {
	w := grade.Work{Build: func(ctx context.Context, slot int) *grade.Built {
		return &grade.Built{Err: build(ctx)}
	}}
	if run != nil {
		w.Run = func(ctx context.Context, b *grade.Built, device string, slot int) (*grade.Ran, error) {
			if err := run(ctx, device); err != nil {
				return nil, err
			}
			return &grade.Ran{}, nil
		}
	}
	return w
}

// Options say how to verify.
type Options struct {
	Root        string // the course's verify folder (.lessons/verify)
	CompileOnly bool
	Toolkit     *exercise.Toolkit
	Choice      grade.Choice
	// LessonEnv is what the cells of a lesson run with in workspace ws:
	// nvcc through the cache, in cells too (the workspace's wrapper).
	LessonEnv func(ws string) (notebook.Env, error)
}

// Choose picks runs per GPU and hardware queues for verifying c, as the
// flags say when above 0: each exercise is two items (its solution and
// itself); lessons keep CUDA's queues, so that what they print about
// streams and timings is what a student sees.
func Choose(c *course.Course, perGPU, queues int) grade.Choice {
	timed, untimed := 0, 0
	for _, x := range c.Exercises {
		if spec, err := exercise.LoadSpec(c, x); err == nil && spec.Timed {
			timed += 2
		} else {
			untimed += 2
		}
	}
	kept := "the lessons"
	if timed > 0 {
		kept = "the timed and the lessons"
	}
	return grade.Choose(perGPU, queues, untimed, timed, kept)
}

// Items lists what to verify: each lesson, each solution, each untouched
// exercise.
func Items(c *course.Course, o Options) ([]*Item, error) {
	var items []*Item
	for _, e := range c.Lessons {
		l, err := c.Parse(e)
		if err != nil {
			return nil, err
		}
		it := &Item{Kind: "lesson", Name: e.Name(), Want: "every cell runs"}
		ws := filepath.Join(o.Root, "lessons", e.Name())
		cells := func(ctx context.Context, compile bool) error {
			// No link on the workspace's way out of the course.
			if _, err := safefs.Dir(c.Root, filepath.Join(".lessons", "verify", "lessons", e.Name())); err != nil {
				return err
			}
			env, err := o.LessonEnv(ws)
			if err != nil {
				return err
			}
			env = notebook.ForLesson(ctx, env, l)
			if l.HasPython() && !compile {
				it.note = "; its Python cells ran in " + env.PythonWay
			}
			outcomes, err := notebook.Run(ctx, l, env, notebook.Options{Workspace: ws, Timeout: 2 * time.Minute, CompileOnly: compile, KeepGoing: true}, io.Discard)
			if err != nil {
				return err
			}
			for _, oc := range outcomes {
				if !oc.OK && !oc.Skipped {
					if oc.Cell.Number == 0 { // a cell lessons does not run (a Julia kernel's)
						return fmt.Errorf("the cell at line %d: not run: %s", oc.Cell.Line, oc.Reason)
					}
					return fmt.Errorf("cell [%d] (line %d): %s", oc.Cell.Number, oc.Cell.Line, oc.Reason)
				}
			}
			return nil
		}
		if o.CompileOnly {
			it.Want = "every cell compiles"
		}
		var run func(ctx context.Context, device string) error
		if !o.CompileOnly {
			run = func(ctx context.Context, device string) error { return cells(ctx, false) }
		}
		it.work = steps(func(ctx context.Context) error { return cells(ctx, true) }, run)
		items = append(items, it)
	}
	for _, x := range c.Exercises {
		spec, err := exercise.LoadSpec(c, x)
		if err != nil {
			return nil, err
		}
		for _, side := range []struct {
			name, file string
			pass       bool
		}{{"solution", x.Solution, true}, {"exercise", x.Student, false}} {
			items = append(items, exerciseItem(c, x, spec, o, side.name, side.file, side.pass))
		}
	}
	return items, nil
}

// exerciseItem is the item of one side of exercise x: its solution
// (pass) or its student file as given.
func exerciseItem(c *course.Course, x *course.Exercise, spec *checker.Spec, o Options, kind, file string, pass bool) *Item {
	it := &Item{Kind: kind, Name: x.ID, Want: "fails a check"}
	job := &exercise.Job{ID: x.ID, Spec: spec, Dir: filepath.Join(o.Root, kind, x.ID), Root: c.Root, Env: o.Choice.Env(spec.Timed),
		// A solution's folder holds the files students complete; the
		// others are the exercise's own.
		Files: exercise.Files(x, spec, c.Path(file), filepath.Dir(c.Path(file)), filepath.Dir(c.Path(x.Student)))}
	if pass {
		it.Want = "passes every check"
	}
	var judge grade.Judge = exercise.RunAll
	if o.CompileOnly {
		it.Want, judge = "compiles", nil
	}
	it.work = grade.JobWork("", o.Toolkit, exercise.Plain{}, job, judge)
	it.judge = func(oc grade.Outcome) error {
		var few *grade.TooFewGPUs
		switch {
		case errors.As(oc.Err(), &few):
			it.Got, it.OK, it.Skipped = "skipped: "+few.Error(), true, true
			return nil
		case oc.Err() != nil:
			return oc.Err()
		case oc.Built.Failed != nil:
			return fmt.Errorf("%s", oc.Built.Failed[0].Got)
		case oc.Ran == nil:
			return nil // compile only
		}
		res := oc.Ran.Results
		switch {
		case pass && !checker.Passed(res):
			return fmt.Errorf("fails: %s", FirstFailure(res))
		case pass:
			if why := NotMade(res); why != "" {
				it.note = "; not judged here: " + why
			}
		case !pass && checker.Passed(res):
			return fmt.Errorf("passes every check as given: the checks do not tell it from a solution")
		case !pass && spec.Partial():
			// Points a stub earns as given are points for nothing.
			it.Got, it.OK = fmt.Sprintf("ok: %s; as given it scores %d of %d points", FirstFailure(res), spec.Score(res), spec.Points), true
		case !pass:
			it.Got, it.OK = "ok: "+FirstFailure(res), true
		}
		return nil
	}
	return it
}

// Run builds and runs items on slots, each run as soon as its build is
// done; each item's Got says what went wrong, "ok" when nothing did.
// Stopped half way (ctx), it returns ctx's error: items never built or
// run would read as ok.
func Run(ctx context.Context, items []*Item, slots grade.Slots) error {
	var sched []*grade.Item
	for _, it := range items {
		w := it.work
		w.Name = it.Kind + " " + it.Name
		sched = append(sched, grade.NewItem(w, func(o grade.Outcome) {
			it.Took = o.Took
			err := o.Err()
			if it.judge != nil {
				err = it.judge(o)
			}
			if err != nil {
				it.Got = err.Error()
			}
		}))
	}
	grade.Schedule(ctx, sched, slots)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	for _, it := range items {
		if it.Got == "" {
			it.Got, it.OK = "ok"+it.note, true
		}
	}
	return nil
}

// NotMade says why the first check of res that was skipped for a reason
// an author must see (a hidden run's case not set up: arranged) was not
// made, or "" when none was: a solution that passes so is not proven.
func NotMade(res []checker.Result) string {
	for _, r := range res {
		if r.Skipped && r.Review != "" {
			return r.Review
		}
	}
	return ""
}

// FirstFailure names the first check of res that failed, with what was
// seen.
func FirstFailure(res []checker.Result) string {
	for _, r := range res {
		if !r.Pass {
			return r.Name + " (" + r.Got + ")"
		}
	}
	return ""
}

// WriteTable writes the verify table of items (width columns wide), a
// line each with what was expected and what came, then the sum of them,
// and fails silently (the table said it) when any was a surprise.
// compileOnly says nothing ran.
func WriteTable(w io.Writer, width int, items []*Item, compileOnly bool, took time.Duration) error {
	built := "built and ran"
	if compileOnly {
		built = "built"
	}
	table, surprises := Table(items)
	table.Write(w, width)
	skipped := 0
	for _, it := range items {
		if it.Skipped {
			skipped++
		}
	}
	fmt.Fprintf(w, "\n%d items %s in %s: %d as expected, %d surprises", len(items), built, Seconds(took), len(items)-surprises-skipped, surprises)
	if skipped > 0 {
		fmt.Fprintf(w, ", %d not run (they need more GPUs than this machine has)", skipped)
	}
	fmt.Fprintln(w)
	if surprises > 0 {
		return &failure.Silent{}
	}
	return nil
}
