// Package cli is the lessons command line: flag parsing and wiring only;
// what the commands do lives in the packages they call.
package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/iostreams"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/ui"
)

// Main runs the command line and returns the exit code.
func Main() int {
	return Run(iostreams.System(), os.Args[1:])
}

// Run runs the command line with args on the given streams.
func Run(io *iostreams.IOStreams, args []string) int {
	root := NewRoot(io)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	return exit(io, cmd, err)
}

// exit tells err as its kind is told and gives its exit status, which
// failure.Status chooses: a usage error points at the command's help; a
// failure already told is not told again.
func exit(io *iostreams.IOStreams, cmd *cobra.Command, err error) int {
	var usage *failure.Usage
	var silent *failure.Silent
	var tool *failure.Tool
	switch es := lesson.AsErrors(err); {
	case err == nil, errors.As(err, &silent):
	case errors.As(err, &usage):
		fmt.Fprintf(io.ErrOut, "lessons: %v\n", usage.Err)
		if cmd != nil {
			fmt.Fprintf(io.ErrOut, "Run '%s --help' for usage.\n", cmd.CommandPath())
		}
	case es != nil && !errors.As(err, &tool):
		for _, e := range es {
			fmt.Fprintln(io.ErrOut, e)
		}
	default:
		fmt.Fprintf(io.ErrOut, "lessons: %v\n", err)
	}
	return failure.Status(err)
}

// errSilent is returned by a command that has already said what went wrong.
var errSilent = &failure.Silent{}

func usagef(format string, args ...any) error { return failure.Usagef(format, args...) }

// unknownCommand is the root's argument check: with no subcommand of
// that name, cobra hands the words to the root itself.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return usagef("%s", msg)
}

// globals are the flags every command shares.
type globals struct {
	courseDir string
}

// course finds and loads the course (course.Open).
func (g *globals) course() (*course.Course, error) { return course.Open(g.courseDir) }

// NewRoot builds the command tree.
func NewRoot(io *iostreams.IOStreams) *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:   "lessons",
		Short: "Read, run and check a day-by-day CUDA course",
		Long: `lessons is a lesson runner and course kit for a day-by-day CUDA course.

Students read a day's lesson in the terminal or the browser, run its code
like a notebook, and check their exercises. Course authors keep lessons,
exercises and solutions in one folder with a course.toml, preview it with
lessons serve, and export the course as a static site. Instructors grade a
class with lessons grade.`,
		Example: `  lessons list                  the course's days, titles and exercises
  lessons show 87               read day 87 in the terminal
  lessons show stream-ordered   the same, by slug (or a unique part of it)
  lessons show notes/draft.md   any markdown or notebook export, by path
  lessons export --html site    the whole course as a site; open site/index.html
  lessons serve                 the same site at http://127.0.0.1:3000/, reloaded on every save
  lessons run 70                run day 70's cells like a notebook, on the GPU
  lessons check                 am I done? checks the first exercise not yet passed
  lessons hint                  the next hint of that exercise, one level at a time
  lessons watch                 re-check on every save, move on when it passes
  lessons verify                (authors) every solution passes, every exercise fails, every cell runs
  lessons generate              (authors) the students' files from the solutions' regions
  lessons lint                  (authors) the course, lessons, specs and markers, without nvcc or a GPU
  lessons grade submissions/    (instructors) grade a class into gradebook.db; then grade export, grade feedback
  lessons doctor                what this machine has: GPU, driver, nvcc, grading sandbox, cache`,
		SilenceUsage:               true,
		SilenceErrors:              true,
		Args:                       unknownCommand,
		SuggestionsMinimumDistance: 2,
		RunE:                       func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	root.PersistentFlags().StringVar(&g.courseDir, "course", "", "the course folder (default: the folder holding course.toml, here or above; or $LESSONS_COURSE)")
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetIn(io.In)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &failure.Usage{Err: err} })
	help := root.HelpFunc() // wrapped to the terminal, under its columns
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		var b strings.Builder
		c.SetOut(&b)
		help(c, args)
		c.SetOut(io.Out)
		fmt.Fprint(io.Out, ui.Fit(ui.Reflow(b.String()), io.Width()))
	})
	root.AddCommand(newList(io, g, nil), newShow(io, g, nil), newExport(io, g, nil), newServe(io, g, nil), newRun(io, g, nil), newCheck(io, g, nil), newWatch(io, g, nil), newVerify(io, g, nil), newGrade(io, g, nil), newSandbox(io, nil), newDoctor(io, nil), newCache(io, nil), newImport(io, nil), newHint(io, g, nil), newInvite(io), newSubmit(io), newPilot(io))
	// Authoring: one source for exercises, and what can be checked without a GPU.
	root.AddCommand(newGenerate(io, g, nil), newLint(io, g, nil), newNew(io, g, nil))
	return root
}

func printWarnings(io *iostreams.IOStreams, ws []*lesson.Error) {
	for _, w := range ws {
		fmt.Fprintf(io.ErrOut, "warning: %s\n", ui.Printable(w.Error()))
	}
}
