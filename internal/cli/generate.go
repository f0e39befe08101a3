package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/author"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/iostreams"
	"github.com/cudalessons/lessons/internal/ui"
)

// GenerateOptions are the inputs of lessons generate.
type GenerateOptions struct {
	IO           *iostreams.IOStreams
	g            *globals
	Force, Check bool
}

func newGenerate(io *iostreams.IOStreams, g *globals, runF func(*GenerateOptions) error) *cobra.Command {
	opts := &GenerateOptions{IO: io, g: g}
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "(authors) Write the students' files in exercises/ from the solutions' markers",
		Long: `Write each exercise's student file from its solution: the solution file
with every region between // BEGIN SOLUTION and // END SOLUTION replaced by
its stub (the lines after // STUB, with their first // removed), or by a
TODO comment when it has none.

A file is written only when it changes, whole or not at all. ` + author.SumFile + `
records what was written; a student file edited by hand since is left alone
(exit 1, saying which and why) unless --force. A solution without markers
is kept by hand and skipped. --check writes nothing and exits 1 when a
student file is out of date (lessons lint and lessons verify check the same).`,
		Example: "  lessons generate\n  lessons generate --check\n  lessons generate --force",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return generateRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "overwrite student files edited by hand")
	cmd.Flags().BoolVar(&opts.Check, "check", false, "write nothing; exit 1 when a student file is out of date")
	return cmd
}

func generateRun(opts *GenerateOptions) error {
	io, check := opts.IO, opts.Check
	c, err := opts.g.course()
	if err != nil {
		return err
	}
	files, err := author.Generate(c, author.Options{DryRun: check, Force: opts.Force})
	if err != nil {
		return err
	}
	refused, written, current := 0, 0, 0
	for _, f := range files {
		switch f.State {
		case author.UpToDate:
			current++
		case author.Written:
			written++
			if check {
				fmt.Fprintf(io.Out, "out of date  %s (from %s)\n", f.Student, f.Solution)
			} else {
				fmt.Fprintf(io.Out, "wrote        %s (from %s)\n", f.Student, f.Solution)
			}
		case author.Edited, author.Unknown:
			refused++
			fmt.Fprintf(io.ErrOut, "lessons: generate %s: not overwritten: %s; move the change into %s, or pass --force to overwrite it\n", f.Student, f.Why, f.Solution)
		case author.Unmarked:
			fmt.Fprintf(io.Out, "kept by hand %s (%s has no // BEGIN SOLUTION)\n", f.Student, f.Solution)
		}
	}
	fmt.Fprintf(io.Out, "%s, %d %s, %d up to date\n", ui.Count(len(files), "exercise"), written, map[bool]string{true: "out of date", false: "written"}[check], current)
	if refused > 0 || (check && written > 0) {
		return errSilent
	}
	return nil
}

// checkGenerated fails when a student file is not what its solution's
// markers generate: the course would ship an exercise its author did not
// mean.
func checkGenerated(c *course.Course) error {
	stale, err := author.Stale(c)
	if err != nil {
		return err
	}
	if len(stale) > 0 {
		return fmt.Errorf("%s", strings.Join(stale, "\nlessons: "))
	}
	return nil
}
