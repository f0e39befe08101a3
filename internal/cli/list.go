package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/iostreams"
	"github.com/cudalessons/lessons/internal/progress"
	"github.com/cudalessons/lessons/internal/study"
)

// ListOptions are the inputs of lessons list.
type ListOptions struct {
	IO *iostreams.IOStreams
	g  *globals
}

func newList(io *iostreams.IOStreams, g *globals, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{IO: io, g: g}
	return &cobra.Command{
		Use:     "list",
		Short:   "List the course's lessons and exercises",
		Example: "  lessons list\n  lessons list --course ~/cuda-course",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return listRun(opts)
		},
	}
}

func listRun(opts *ListOptions) error {
	c, err := opts.g.course()
	if err != nil {
		return err
	}
	p, err := progress.Load(c)
	if err != nil {
		return err
	}
	return study.WriteList(opts.IO.SafeOut(), opts.IO.Width(), c, p)
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments, got %q", cmd.Name(), strings.Join(args, " "))
	}
	return nil
}
