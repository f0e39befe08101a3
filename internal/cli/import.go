package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/iostreams"
	"github.com/cudalessons/lessons/internal/lesson"
)

// ImportOptions are the inputs of lessons import.
type ImportOptions struct {
	IO      *iostreams.IOStreams
	Sources []string
	To      string
	Dir     string
	Title   string
	Force   bool
}

func newImport(io *iostreams.IOStreams, runF func(*ImportOptions) error) *cobra.Command {
	opts := &ImportOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "import NOTEBOOK_OR_FOLDER... [--to md] [--force]",
		Short: "Make a course of existing Jupyter notebooks",
		Long: `Make a course of Jupyter notebooks (.ipynb, nbformat 4): a course.toml and
the lessons under lessons/ as dayNNN-slug.ipynb, kept as they are, or with
--to md converted cell for cell to plain markdown (fenced code, file= and
run cells; recorded outputs are left out).

The lessons are in the order given, or, when every notebook's name holds a
day number (day03-..., 07_streams.ipynb), in the order of those days. A
folder stands for the notebooks in it. Nothing that exists is overwritten
unless --force is given; each file written is named.`,
		Example: "  lessons import ~/cuda-course/*.ipynb\n  lessons import notebooks/ --to md --dir mycourse",
		Args:    argsUnless(func(n int) bool { return n == 0 }, "import takes notebooks or folders of them: lessons import a.ipynb b.ipynb"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Sources = args
			if opts.To != "ipynb" && opts.To != "md" {
				return usagef("--to is md or ipynb, not %q", opts.To)
			}
			if runF != nil {
				return runF(opts)
			}
			return importRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.To, "to", "ipynb", "keep the notebooks (ipynb) or convert them to markdown (md)")
	cmd.Flags().StringVar(&opts.Dir, "dir", ".", "make the course in `DIR`")
	cmd.Flags().StringVar(&opts.Title, "title", "", "the course's title (default: from the notebooks' folder name)")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "overwrite files that exist")
	return cmd
}

func importRun(opts *ImportOptions) error {
	err := course.Import(course.ImportOptions{Sources: opts.Sources, To: opts.To, Dir: opts.Dir, Title: opts.Title, Force: opts.Force,
		Wrote: func(path, from string, lessons int) {
			if from != "" {
				fmt.Fprintf(opts.IO.Out, "wrote %s (from %s)\n", path, from)
			} else {
				fmt.Fprintf(opts.IO.Out, "wrote %s (%d lessons)\n", path, lessons)
			}
		}})
	if lesson.AsErrors(err) != nil {
		fmt.Fprintln(opts.IO.ErrOut, "import: nothing written; fix these and run it again:")
	}
	return err
}
