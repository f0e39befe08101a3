package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/failure"
	hw "github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/progress"
	"github.com/cudalessons/lessons/internal/ui"
)

// CheckOptions are the inputs of lessons check.
type CheckOptions struct {
	IO       *IOStreams
	g        *globals
	Exercise string
	Verbose  bool
	// File is checked in place of the exercise's student file.
	File string
}

func newCheck(io *IOStreams, g *globals, runF func(*CheckOptions) error) *cobra.Command {
	opts := &CheckOptions{IO: io, g: g}
	cmd := &cobra.Command{
		Use:   "check [EXERCISE]",
		Short: "Check an exercise: am I done?",
		Long: `Build and run an exercise's file, then judge the run against the exercise's
checks: what it prints, how it exits, and what it did with the CUDA allocator
(recorded from outside the program, by a library preloaded into it).

Without EXERCISE, the first exercise not yet passed. Exits 0 when every check
passes, 1 when one fails, 2 when the exercise could not be checked (no nvcc,
no GPU, a bad spec).`,
		Example: "  lessons check\n  lessons check async-pipeline\n  lessons check async-pipeline -v   # show the program's output too",
		Args:    atMostOneExercise("check"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Exercise = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return checkRun(opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Verbose, "verbose", "v", false, "show the program's output")
	cmd.Flags().StringVar(&opts.File, "file", "", "check `PATH` against the exercise's checks, instead of its file (progress is not saved)")
	return cmd
}

// Progress is what the student has passed (package progress).
type Progress = progress.Progress

func loadProgress(c *course.Course) (*Progress, error) { return progress.Load(c) }

func nextUnpassed(c *course.Course, p *Progress, after string) (string, bool) {
	return p.Next(c, after)
}

func checkRun(opts *CheckOptions) error {
	c, err := opts.g.course()
	if err != nil {
		return err
	}
	progress, err := loadProgress(c)
	if err != nil {
		return err
	}
	var x *course.Exercise
	if opts.Exercise != "" {
		if x, err = c.Exercise(opts.Exercise); err != nil {
			return err
		}
	} else {
		id, ok := nextUnpassed(c, progress, "")
		if !ok {
			fmt.Fprintf(opts.IO.Out, "Every exercise of %s is passed. Check one again with lessons check ID.\n", c.Title)
			return nil
		}
		x, _ = c.Exercise(id)
	}
	ctx, stop := interrupted()
	defer stop()
	// With --file, the exercise's other files are read from beside the
	// file named, else from the exercise's folder (exercise.NewJob).
	src := c.Path(x.Student)
	if opts.File != "" {
		if src, err = filepath.Abs(opts.File); err != nil {
			return err
		}
		if _, err := os.Stat(src); err != nil {
			if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
				err = pe.Err // the path is said once
			}
			return usagef("check --file %s: %v", opts.File, err)
		}
	}
	m, err := checkMachine(ctx, "check")
	if miss := (*hw.Missing)(nil); errors.As(err, &miss) && miss.NoGPU != nil {
		off, err := exercise.CheckOffline(ctx, c, x, src, miss)
		if err == nil {
			fmt.Fprint(opts.IO.Out, ui.Fit(off.Text(), opts.IO.Width()))
			err = &failure.Silent{Code: 2} // not judged
		}
		return err
	}
	if err != nil {
		return err
	}
	passed, err := checkOne(ctx, opts.IO, c, m, x, src, opts.Verbose, opts.File == "")
	if err != nil {
		return err
	}
	if passed && opts.File != "" {
		fmt.Fprintf(opts.IO.Out, "\n%s passes every check of %s.\n", opts.File, x.ID)
	}
	if !passed {
		return errSilent
	}
	return nil
}

// atMostOneExercise is the argument check of check and watch.
func atMostOneExercise(command string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 1 {
			return usagef("%s takes at most one exercise", command)
		}
		return nil
	}
}

// interrupted is a context that Ctrl-C (or SIGTERM) cancels, so that a
// command stops its programs and says what it kept.
func interrupted() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// checkMachine finds nvcc and a GPU for the command named cmd (check,
// watch, grade), which its errors name.
func checkMachine(ctx context.Context, cmd string) (*machine, error) {
	m, err := hw.Need(ctx, cmd)
	if err != nil {
		return nil, err
	}
	return &machine{Machine: m}, nil
}

// toolkit is the exercise pipeline's toolkit on this machine.
func (m *machine) toolkit() *exercise.Toolkit {
	if m.tk == nil {
		m.tk = exercise.NewToolkit(m.Compiler(), m.Cache)
		m.tk.Driver = exercise.DriverWatcher()
	}
	return m.tk
}

// checkOne checks src against exercise x, prints each check and the hints
// of the failed ones, and saves the progress when it passes and save is set.
func checkOne(ctx context.Context, ios *IOStreams, c *course.Course, m *machine, x *course.Exercise, src string, verbose, save bool) (bool, error) {
	st, err := exercise.NewStudent(c, x, src, m.RunEnv())
	if err != nil {
		return false, err
	}
	spec, out := st.Spec, ios.Out
	fmt.Fprintf(out, "Checking %s (%s)\n\n", x.ID, strings.TrimPrefix(src, c.Root+string(filepath.Separator)))
	if err := st.Check(ctx, m.toolkit()); err != nil {
		return false, err
	}
	io.WriteString(out, st.Log)
	if verbose && st.Output != "" {
		io.WriteString(out, st.Output)
		fmt.Fprintln(out)
	}
	for _, r := range st.Results {
		pts := "" // with partial credit, what each check is worth
		if r.Check != nil && r.Check.Points > 0 {
			pts = " (" + ui.Count(r.Check.Points, "point") + ")"
			if !r.Pass {
				pts = " (0 of " + ui.Count(r.Check.Points, "point") + ")"
			}
		}
		switch {
		case r.Skipped:
			fmt.Fprintf(out, "  %s %s (%s)%s\n", ui.Style(ios.Color(), "33", "–"), r.Name, r.Got, pts)
		case r.Pass:
			fmt.Fprintf(out, "  %s %s%s\n", ui.Style(ios.Color(), "32", "✓"), r.Name, pts)
		default:
			fmt.Fprintf(out, "  %s %s%s\n      expected: %s\n      got:      %s\n", ui.Style(ios.Color(), "31", "✗"), r.Name, pts, r.Want, r.Got)
		}
	}
	if n := spec.Hidden(); n > 0 {
		fmt.Fprintf(out, "\n%s also %s when the exercise is graded.\n", ui.Count(n, "hidden check"), map[bool]string{true: "runs", false: "run"}[n == 1])
	}
	if len(st.Results) == 0 {
		// Every check of the spec is hidden: nothing here says done.
		fmt.Fprintf(out, "No check of %s runs before grading: lessons check cannot say whether it is done.\n", x.ID)
		return false, nil
	}
	if !st.Passed() {
		if spec.Partial() {
			fmt.Fprintf(out, "\n%d of %d points so far.\n", st.Score(), spec.Points)
		}
		if len(st.Hints) > 0 {
			fmt.Fprintf(out, "\nhint: %s\n", strings.Join(st.Hints, "\n      "))
		}
		return false, nil
	}
	if !save {
		return true, nil
	}
	progress, err := st.Record(c)
	if err != nil {
		return true, err
	}
	fmt.Fprintf(out, "\n%s passed (%d points). %d of %d exercises passed.\n", x.ID, spec.Points, len(progress.Passed), len(c.Exercises))
	return true, nil
}
