package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/grade"
	hw "github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/ui"
)

// VerifyOptions are the inputs of lessons verify.
type VerifyOptions struct {
	IO          *IOStreams
	g           *globals
	CompileOnly bool
	// Mutants tests the specs instead: every mutant of every solution
	// must fail a check (mutants.go).
	Mutants bool
	Jobs    int
	// PerGPU and Queues are 0 when no flag gives them: chosen from what
	// the course runs.
	PerGPU, Queues int
}

func newVerify(io *IOStreams, g *globals, runF func(*VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{IO: io, g: g}
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Prove the course works: solutions pass, untouched exercises fail, lessons run",
		Long: `Verify the whole course, as its author must before students get it:
every solution passes all its checks, every untouched exercise compiles and
fails at least one check, and every lesson's runnable cells run.

Builds run in parallel on all cores; each item's run starts as soon as its
build is done. Without flags, runs share the GPU (up to 16 at once) and the
programs of untimed exercises get 2 hardware queues, which start CUDA
faster; an exercise whose spec says timed = true runs with the GPU to
itself and CUDA's 8 queues, and lessons keep CUDA's 8 queues so that what
they print about streams is what a student sees. The first line says what
was chosen; --per-gpu and --gpu-queues set it. --compile-only does the build
half, which needs nvcc but no GPU (CI runs it). Prints a table and exits 1 on
any surprise.`,
		Example: "  lessons verify\n  lessons verify --compile-only\n  lessons verify --per-gpu 1      # one run at a time\n  lessons verify --mutants        # every mutant of every solution must fail a check",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("per-gpu") && (opts.PerGPU < 1 || opts.PerGPU > 64) {
				return usagef("--per-gpu is 1 to 64, not %d", opts.PerGPU)
			}
			if opts.Mutants && opts.CompileOnly {
				return usagef("--mutants runs every mutant on the GPU; it does not go with --compile-only")
			}
			if err := hw.CheckQueues(opts.Queues); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return verifyRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.CompileOnly, "compile-only", false, "only build every lesson cell, exercise and solution")
	cmd.Flags().BoolVar(&opts.Mutants, "mutants", false, "test the specs: every mutant of every solution's regions must fail a check; lists the survivors")
	cmd.Flags().IntVarP(&opts.Jobs, "jobs", "j", runtime.NumCPU(), "builds at once")
	cmd.Flags().IntVar(&opts.PerGPU, "per-gpu", 0, "runs at once on each GPU (default: chosen, up to 16; a timed exercise's run still has its GPU to itself)")
	cmd.Flags().IntVar(&opts.Queues, "gpu-queues", 0, gpuQueuesHelp)
	return cmd
}

// item is one line of the verify table.
type item struct {
	kind, name, want string
	ok               bool
	got              string
	took             time.Duration
	// build and run are the two halves; run is nil in compile-only mode.
	build func(ctx context.Context) error
	run   func(ctx context.Context, device string) error
	// alone: the run has the GPU to itself (its spec is timed).
	alone bool
}

func verifyRun(opts *VerifyOptions) error {
	ios := opts.IO
	c, err := opts.g.course()
	if err != nil {
		return err
	}
	if err := checkGenerated(c); err != nil {
		return err
	}
	ctx, stop := interrupted()
	defer stop()
	root := filepath.Join(c.Root, ".lessons", "verify")
	m, err := findMachine(ctx, "")
	if err != nil {
		return failure.Toolf("lessons verify needs nvcc: %w", err)
	}
	if m.GPUErr != nil && !opts.CompileOnly {
		return failure.Toolf("lessons verify runs the course, which needs a GPU (%v); lessons verify --compile-only builds it without one", m.GPUErr)
	}
	if opts.Mutants {
		return verifyMutants(ctx, opts, c, m)
	}
	start := time.Now()
	if !opts.CompileOnly {
		// The statistics library builds beside the course; the first run
		// of an exercise waits for it if it is not done.
		go m.toolkit().StatsLibrary(ctx)
	}
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
	choice := grade.Choose(opts.PerGPU, opts.Queues, untimed, timed, kept)
	// Lessons keep CUDA's queues unless a flag says: what they print
	// about streams and timings is what a student sees.
	m.Queues = choice.TimedQueues
	items, err := verifyItems(c, m, root, opts.CompileOnly, choice)
	if err != nil {
		return err
	}
	devices := []string{"0"} // compile-only: no runs
	if !opts.CompileOnly {
		devices = hw.Devices(len(m.Info.Devices))
		fmt.Fprintf(ios.ErrOut, "Verifying %s: builds on %d cores, runs on %d GPU(s), %d at a time on each%s.\n",
			ui.Count(len(items), "item"), max(opts.Jobs, 1), len(devices), choice.PerDevice, chosen(choice))
	}
	var sched []*grade.Item
	for _, it := range items {
		s := &grade.Item{Name: it.kind + " " + it.name, Timed: it.alone,
			Build: func(ctx context.Context, slot int) (bool, string) {
				t := time.Now()
				if err := it.build(ctx); err != nil {
					it.got = err.Error()
				}
				it.took = time.Since(t)
				return it.got == "", "built"
			}}
		if it.run != nil {
			s.Run = func(ctx context.Context, device string, slot int) time.Duration {
				t := time.Now()
				if err := it.run(ctx, device); err != nil {
					it.got = err.Error()
				}
				it.took += time.Since(t)
				return 0
			}
		}
		sched = append(sched, s)
	}
	grade.Schedule(ctx, sched, grade.Slots{Jobs: opts.Jobs, Devices: devices, PerDevice: choice.PerDevice})
	if ctx.Err() != nil {
		// Stopped half way: items never built or run would read as ok.
		return ctx.Err()
	}
	surprises := 0
	tw := tabwriter.NewWriter(ios.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tNAME\tEXPECTED\tRESULT\tTIME")
	for _, it := range items {
		if it.got == "" {
			it.got, it.ok = "ok", true
		}
		mark := "✓"
		if !it.ok {
			mark = "✗"
			surprises++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s %s\t%s\n", it.kind, it.name, it.want, mark, it.got, it.took.Round(10*time.Millisecond))
	}
	tw.Flush()
	mode := "built and ran"
	if opts.CompileOnly {
		mode = "built"
	}
	fmt.Fprintf(ios.Out, "\n%d items %s in %s: %d as expected, %d surprises\n", len(items), mode, time.Since(start).Round(10*time.Millisecond), len(items)-surprises, surprises)
	if surprises > 0 {
		return errSilent
	}
	return nil
}

// chosen says, for a start line, what was chosen without a flag and why.
func chosen(c grade.Choice) string {
	if c.Why == "" {
		return ""
	}
	return " (chosen: " + c.Why + "; --per-gpu and --gpu-queues override)"
}

// verifyItems lists what to verify: each lesson, each solution, each
// untouched exercise.
func verifyItems(c *course.Course, m *machine, root string, compileOnly bool, choice grade.Choice) ([]*item, error) {
	var items []*item
	for _, e := range c.Lessons {
		l, err := c.Parse(e)
		if err != nil {
			return nil, err
		}
		it := &item{kind: "lesson", name: e.Name(), want: "every cell runs"}
		ws := filepath.Join(root, "lessons", e.Name())
		cells := func(ctx context.Context, compile bool) error {
			if err := makeWrapper(wrapperDir(ws)); err != nil {
				return err
			}
			outcomes, err := notebook.Run(ctx, l, m.notebookEnv(m.Compiler(), ws), notebook.Options{Workspace: ws, Timeout: 2 * time.Minute, CompileOnly: compile, KeepGoing: true, Parallel: runtime.NumCPU()}, io.Discard)
			if err != nil {
				return err
			}
			for _, o := range outcomes {
				if !o.OK && !o.Skipped {
					return fmt.Errorf("cell [%d] (line %d): %s", o.Cell.Number, o.Cell.Line, o.Reason)
				}
			}
			return nil
		}
		if compileOnly {
			it.want = "every cell compiles"
		}
		it.build = func(ctx context.Context) error { return cells(ctx, true) }
		if !compileOnly {
			it.run = func(ctx context.Context, device string) error { return cells(ctx, false) }
		}
		items = append(items, it)
	}
	tk := m.toolkit()
	for _, x := range c.Exercises {
		spec, err := exercise.LoadSpec(c, x)
		if err != nil {
			return nil, err
		}
		queues := choice.Queues
		if spec.Timed {
			queues = choice.TimedQueues
		}
		for _, side := range []struct {
			name, file string
			pass       bool
		}{{"solution", x.Solution, true}, {"exercise", x.Student, false}} {
			it := &item{kind: side.name, name: x.ID, alone: spec.Timed}
			var prog string
			job := &exercise.Job{ID: x.ID, Spec: spec, Dir: filepath.Join(root, side.name, x.ID), Env: hw.QueuesEnv(queues),
				// A solution's folder holds the files students complete;
				// the others are the exercise's own.
				Files: exercise.Files(x, spec, c.Path(side.file), filepath.Dir(c.Path(side.file)), filepath.Dir(c.Path(x.Student)))}
			it.want = "fails a check"
			if side.pass {
				it.want = "passes every check"
			}
			if compileOnly {
				it.want = "compiles"
			}
			it.build = func(ctx context.Context) error {
				b, err := exercise.Build(ctx, tk, exercise.Plain{}, job, 0)
				if err != nil {
					return err
				}
				if b.Failed != nil {
					return fmt.Errorf("%s", b.Failed[0].Got)
				}
				prog = b.Prog
				return nil
			}
			if !compileOnly {
				pass := side.pass
				it.run = func(ctx context.Context, device string) error {
					v, err := exercise.RunAll(ctx, tk, exercise.Plain{}, job, prog, device, 0)
					if err != nil {
						return err
					}
					res := v.Results
					switch {
					case pass && !checker.Passed(res):
						return fmt.Errorf("fails: %s", firstFailure(res))
					case !pass && checker.Passed(res):
						return fmt.Errorf("passes every check as given: the checks do not tell it from a solution")
					case !pass && spec.Partial():
						// Points a stub earns as given are points for nothing.
						it.got, it.ok = fmt.Sprintf("ok: %s; as given it scores %d of %d points", firstFailure(res), spec.Score(res), spec.Points), true
					case !pass:
						it.got, it.ok = "ok: "+firstFailure(res), true
					}
					return nil
				}
			}
			items = append(items, it)
		}
	}
	return items, nil
}

func firstFailure(res []checker.Result) string {
	for _, r := range res {
		if !r.Pass {
			return r.Name + " (" + r.Got + ")"
		}
	}
	return ""
}
