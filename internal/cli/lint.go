package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/author"
	"github.com/cudalessons/lessons/internal/iostreams"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/ui"
)

// LintOptions are the inputs of lessons lint.
type LintOptions struct {
	IO *iostreams.IOStreams
	g  *globals
}

func newLint(io *iostreams.IOStreams, g *globals, runF func(*LintOptions) error) *cobra.Command {
	opts := &LintOptions{IO: io, g: g}
	return &cobra.Command{
		Use:   "lint",
		Short: "(authors) Check the course, its lessons, specs and markers, without nvcc or a GPU",
		Long: `Check everything about the course that needs no nvcc and no GPU:
course.toml (files, duplicate ids and days), every lesson (it parses and is
not empty), every exercise's spec (unknown keys and statistics, regexes,
bounds, files, hidden inputs), every solution's markers, and that every
student file is what lessons generate writes from its solution.

Prints every problem with its file and line and exits 1 when there is one.
CI runs it before it installs nvcc.`,
		Example: "  lessons lint",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return lintRun(opts)
		},
	}
}

func lintRun(opts *LintOptions) error {
	io := opts.IO
	c, err := opts.g.course()
	if c == nil {
		return err
	}
	if err != nil && lesson.AsErrors(err) == nil {
		return err
	}
	errs, warnings := author.Lint(c, err)
	printWarnings(io, warnings)
	if len(errs) > 0 {
		for _, e := range errs {
			fmt.Fprintln(io.ErrOut, e)
		}
		fmt.Fprintf(io.ErrOut, "lessons: lint: %s\n", ui.Count(len(errs), "problem"))
		return errSilent
	}
	fmt.Fprintf(io.Out, "%s, %s: no problems\n", ui.Count(len(c.Lessons), "lesson"), ui.Count(len(c.Exercises), "exercise"))
	return nil
}
