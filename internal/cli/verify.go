package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/notebook"
)

func newVerify(io *IOStreams, g *globals) *cobra.Command {
	var compileOnly bool
	var jobs, perGPU, queues int
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Prove the course works: solutions pass, untouched exercises fail, lessons run",
		Long: `Verify the whole course, as its author must before students get it:
every solution passes all its checks, every untouched exercise compiles and
fails at least one check, and every lesson's runnable cells run.

Builds run in parallel on all cores; each item's run starts as soon as its
build is done, queued on the GPU one at a time (--per-gpu for more: the
course's timing cells print their figures but no check bounds them; an
exercise whose spec says timed = true still runs with the GPU to itself).
--compile-only does the build
half, which needs nvcc but no GPU (CI runs it). Prints a table and exits 1 on
any surprise.`,
		Example: "  lessons verify\n  lessons verify --compile-only",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if perGPU < 1 || perGPU > 64 {
				return usagef("--per-gpu is 1 to 64, not %d", perGPU)
			}
			if err := checkQueues(queues); err != nil {
				return err
			}
			return verifyRun(io, g, compileOnly, jobs, perGPU, queues)
		},
	}
	cmd.Flags().BoolVar(&compileOnly, "compile-only", false, "only build every lesson cell, exercise and solution")
	cmd.Flags().IntVarP(&jobs, "jobs", "j", runtime.NumCPU(), "builds at once")
	cmd.Flags().IntVar(&perGPU, "per-gpu", 1, "runs at once on the GPU")
	cmd.Flags().IntVar(&queues, "gpu-queues", 0, gpuQueuesHelp)
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
	run   func(ctx context.Context) error
	// alone: the run has the GPU to itself (its spec is timed).
	alone bool
}

func verifyRun(ios *IOStreams, g *globals, compileOnly bool, jobs, perGPU, queues int) error {
	c, err := g.course()
	if err != nil {
		return err
	}
	if err := checkGenerated(c); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := filepath.Join(c.Root, ".lessons", "verify")
	m, err := findMachine(ctx, "")
	if err != nil {
		return toolMissing(fmt.Errorf("lessons verify needs nvcc: %w", err))
	}
	if m.gpuErr != nil && !compileOnly {
		return toolMissing(fmt.Errorf("lessons verify runs the course, which needs a GPU (%v); lessons verify --compile-only builds it without one", m.gpuErr))
	}
	m.queues = queues
	start := time.Now()
	if !compileOnly {
		// The statistics library builds beside the course; the first run
		// of an exercise waits for it if it is not done.
		go statsLibrary(ctx, m)
	}
	items, err := verifyItems(c, m, root, compileOnly)
	if err != nil {
		return err
	}
	// Builds on every core; each built item goes to the GPU's queue, where
	// perGPU workers run them in the order their builds finished; a timed
	// exercise's run waits for the GPU to itself.
	built := make(chan *item, len(items))
	var runners sync.WaitGroup
	var gpu grade.GPU
	for range perGPU {
		runners.Add(1)
		go func() {
			defer runners.Done()
			for it := range built {
				gpu.Use(it.alone, func() {
					t := time.Now()
					if err := it.run(ctx); err != nil {
						it.got = err.Error()
					}
					it.took += time.Since(t)
				})
			}
		}()
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(jobs, 1))
	for _, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			t := time.Now()
			if err := it.build(ctx); err != nil {
				it.got = err.Error()
			}
			it.took = time.Since(t)
			<-sem
			if it.got == "" && it.run != nil {
				built <- it
			}
		}()
	}
	wg.Wait()
	close(built)
	runners.Wait()
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
	if compileOnly {
		mode = "built"
	}
	fmt.Fprintf(ios.Out, "\n%d items %s in %s: %d as expected, %d surprises\n", len(items), mode, time.Since(start).Round(10*time.Millisecond), len(items)-surprises, surprises)
	if surprises > 0 {
		return errSilent
	}
	return nil
}

// verifyItems lists what to verify: each lesson, each solution, each
// untouched exercise.
func verifyItems(c *course.Course, m *machine, root string, compileOnly bool) ([]*item, error) {
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
			outcomes, err := notebook.Run(ctx, l, m.notebookEnv(m.compiler(), ws), notebook.Options{Workspace: ws, Timeout: 2 * time.Minute, CompileOnly: compile, KeepGoing: true, Parallel: runtime.NumCPU()}, io.Discard)
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
			it.run = func(ctx context.Context) error { return cells(ctx, false) }
		}
		items = append(items, it)
	}
	for _, x := range c.Exercises {
		spec, err := loadSpec(c, x)
		if err != nil {
			return nil, err
		}
		for _, side := range []struct {
			name, file string
			pass       bool
		}{{"solution", x.Solution, true}, {"exercise", x.Student, false}} {
			it := &item{kind: side.name, name: x.ID, alone: spec.Timed}
			ws := filepath.Join(root, side.name, x.ID)
			var prog string
			it.want = "fails a check"
			if side.pass {
				it.want = "passes every check"
			}
			if compileOnly {
				it.want = "compiles"
			}
			it.build = func(ctx context.Context) error {
				// A solution's folder holds the files students complete;
				// the others are the exercise's own.
				files := exerciseFiles(x, spec, c.Path(side.file), filepath.Dir(c.Path(side.file)), filepath.Dir(c.Path(x.Student)))
				p, failed, err := buildExercise(ctx, m, spec, files, ws, io.Discard)
				if err != nil {
					return err
				}
				if failed != nil {
					return fmt.Errorf("%s", failed[0].Got)
				}
				prog = p
				return nil
			}
			if !compileOnly {
				pass := side.pass
				it.run = func(ctx context.Context) error {
					res, err := runExercise(ctx, m, spec, prog, ws, false, io.Discard)
					if err != nil {
						return err
					}
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
