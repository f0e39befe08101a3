package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/classroom"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/iostreams"
	"github.com/cudalessons/lessons/internal/progress"
	"github.com/cudalessons/lessons/internal/study"
)

// CheckOptions are the inputs of lessons check.
type CheckOptions struct {
	IO       *iostreams.IOStreams
	g        *globals
	Exercise string
	Verbose  bool
	File     string         // checked in place of the exercise's student file
	Timeline study.Timeline // what to draw of the run, and where its trace goes
	Remote   bool           // judged on the class's server
}

func newCheck(io *iostreams.IOStreams, g *globals, runF func(*CheckOptions) error) *cobra.Command {
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
		Example: "  lessons check\n  lessons check async-pipeline\n  lessons check async-pipeline -v   # show the program's output too\n  lessons check async-pipeline --timeline   # and draw what it did with the allocator",
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
	cmd.Flags().BoolVar(&opts.Timeline.Compare, "compare", false, "run the exercise's solution too and draw the two timelines side by side, with what differs (implies --timeline)")
	cmd.Flags().StringVar(&opts.Timeline.Out, "timeline-out", "", "write the run's trace as the library sent it to `PATH` (implies --timeline)")
	cmd.Flags().BoolVar(&opts.Remote, "remote", false, "judge the file on the class's server, with lessons submit's token ($LESSONS_CLASS_TOKEN): no GPU here needed, and not a submission")
	cmd.Flags().BoolVar(&opts.Timeline.Draw, "timeline", false, "after the verdict, draw what the program did with the allocator: a lane per stream and the host, allocations, event waits, findings")
	return cmd
}

func checkRun(opts *CheckOptions) error {
	c, _, x, err := opts.g.exercise(opts.IO, opts.Exercise, "Every exercise of %s is passed. Check one again with lessons check ID.\n")
	if x == nil {
		return err
	}
	ctx, stop := interrupted()
	defer stop()
	src, err := exercise.Source(c, x, opts.File)
	if err == nil && opts.Remote {
		return classroom.RemoteCheck(ctx, terminal(opts.IO), c, x, src, opts.Verbose, opts.File == "", opts.Timeline)
	} else if err != nil {
		return err
	}
	k, err := study.NewChecker(ctx, terminal(opts.IO), "check", c, x, src)
	if err != nil {
		return err
	}
	k.Timeline = opts.Timeline
	passed, err := k.Check(ctx, terminal(opts.IO), c, x, src, opts.Verbose, opts.File == "")
	if err != nil || passed {
		return err
	}
	return errSilent
}

// argsUnless refuses a command's arguments when bad says so of their
// number, with usage as the error.
func argsUnless(bad func(n int) bool, usage string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if bad(len(args)) {
			return usagef("%s", usage)
		}
		return nil
	}
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

// exercise is the course, its progress and the exercise that a
// student's command works on (study.Pick); x is nil when every exercise
// is passed, which done (its %s the course's title) says.
func (g *globals) exercise(ios *iostreams.IOStreams, id, done string) (*course.Course, *progress.Progress, *course.Exercise, error) {
	c, err := g.course()
	if err != nil {
		return nil, nil, nil, err
	}
	p, err := progress.Load(c)
	if err != nil {
		return nil, nil, nil, err
	}
	x, ok, err := study.Pick(c, p, id)
	if err == nil && !ok {
		fmt.Fprintf(ios.Out, done, c.Title)
	}
	return c, p, x, err
}

// terminal is what study's screens need of the streams.
func terminal(ios *iostreams.IOStreams) study.Terminal {
	return study.Terminal{Out: ios.Out, ErrOut: ios.ErrOut, TTY: ios.IsTTY(), Color: ios.Color(), TrueColor: ios.TrueColor(), Width: ios.Width()}
}
