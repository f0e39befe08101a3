package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/author"
	"github.com/cudalessons/lessons/internal/iostreams"
	"github.com/cudalessons/lessons/internal/scaffold"
)

// NewOptions are the inputs of lessons new and lessons new exercise.
type NewOptions struct {
	IO                           *iostreams.IOStreams
	g                            *globals
	Dir, Title, Exercise, Lesson string
}

func newNew(io *iostreams.IOStreams, g *globals, runF func(*NewOptions) error) *cobra.Command {
	opts := &NewOptions{IO: io, g: g}
	run := func(cmd *cobra.Command, args []string) error {
		opts.Dir, opts.Exercise = args[0], map[bool]string{true: args[0]}[cmd.Name() == "exercise"]
		if runF != nil {
			return runF(opts)
		}
		return newScaffold(opts)
	}
	cmd := &cobra.Command{Use: "new DIR", Args: cobra.ExactArgs(1), RunE: run,
		Short:   "(authors) Start a course in DIR: a lesson, an exercise with its solution, spec and hints",
		Example: "  lessons new my-course\n  cd my-course && lessons new exercise scan --lesson 1"}
	cmd.Flags().StringVar(&opts.Title, "title", "", "the course's title (default: from DIR's name)")
	ex := &cobra.Command{Use: "exercise ID", Args: cobra.ExactArgs(1), RunE: run,
		Short: "(authors) Add an exercise: its solution with markers, spec, student file and [[exercise]]"}
	ex.Flags().StringVar(&opts.Lesson, "lesson", "", "the lesson it belongs to: day, dayNNN or slug (default: the last)")
	cmd.AddCommand(ex)
	return cmd
}

func newScaffold(opts *NewOptions) error {
	m, err := scaffold.New(opts.Dir, opts.Title, opts.g.courseDir, opts.Exercise, opts.Lesson)
	if err != nil {
		return err
	}
	for _, f := range m.Written {
		fmt.Fprintf(opts.IO.Out, "wrote        %s\n", f)
	}
	if author.WriteGenerated(opts.IO.Out, opts.IO.ErrOut, m.Files, false) {
		return errSilent
	}
	fmt.Fprintln(opts.IO.Out, m.Next)
	return nil
}
