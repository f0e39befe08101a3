package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/iostreams"
	"github.com/cudalessons/lessons/internal/study"
	"github.com/cudalessons/lessons/internal/ui"
)

// HintOptions are the inputs of lessons hint.
type HintOptions struct {
	IO       *iostreams.IOStreams
	g        *globals
	Exercise string
}

func newHint(io *iostreams.IOStreams, g *globals, runF func(*HintOptions) error) *cobra.Command {
	opts := &HintOptions{IO: io, g: g}
	return &cobra.Command{
		Use:   "hint [EXERCISE]",
		Short: "Show the next hint of an exercise",
		Long: `Show the hints of an exercise asked for so far, and one more: what to think
about, where to read, then a nudge once a check of it has failed. Without
EXERCISE, the first exercise not yet passed (the one lessons check would
check). What was asked for is kept in .lessons/progress.json.`,
		Example: "  lessons hint\n  lessons hint async-pipeline",
		Args:    atMostOneExercise("hint"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Exercise = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return hintRun(opts)
		},
	}
}

func hintRun(opts *HintOptions) error {
	c, p, x, err := opts.g.exercise(opts.IO, opts.Exercise, "Every exercise of %s is passed: ask for one's hints with lessons hint ID.\n")
	if x == nil {
		return err
	}
	text, err := study.Hint(c, p, x)
	fmt.Fprint(opts.IO.Out, ui.Fit(text, opts.IO.Width()))
	return err
}
