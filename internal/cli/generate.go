package cli

import (
	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/author"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/iostreams"
)

// GenerateOptions are the inputs of lessons generate.
type GenerateOptions struct {
	IO                         *iostreams.IOStreams
	g                          *globals
	Force, Check, WrongPatches bool
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
		Example: "  lessons generate\n  lessons generate --check\n  lessons generate --force\n  lessons generate --wrong-patches",
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
	cmd.Flags().BoolVar(&opts.WrongPatches, "wrong-patches", false, "also rewrite each wrong answer and correct alternative kept whole as a patch against its solution")
	return cmd
}

func generateRun(opts *GenerateOptions) error {
	c, err := course.OpenWith(opts.g.courseDir, course.Options{MissingStudents: true})
	if err != nil {
		return err
	}
	files, err := author.Generate(c, author.Options{DryRun: opts.Check, Force: opts.Force, WrongPatches: opts.WrongPatches})
	if err != nil {
		return err
	}
	if author.WriteGenerated(opts.IO.Out, opts.IO.ErrOut, files, opts.Check) {
		return errSilent
	}
	return nil
}
