package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/iostreams"
	"github.com/cudalessons/lessons/internal/render"
)

// ExportOptions are the inputs of lessons export.
type ExportOptions struct {
	IO    *iostreams.IOStreams
	g     *globals
	HTML  string
	Ipynb string
}

func newExport(io *iostreams.IOStreams, g *globals, runF func(*ExportOptions) error) *cobra.Command {
	opts := &ExportOptions{IO: io, g: g}
	cmd := &cobra.Command{
		Use:   "export (--html DIR | --ipynb DIR)",
		Short: "Write the course as a static site or as Jupyter notebooks",
		Long: `Write the whole course as a static HTML site: a page per lesson with
previous/next links, a table of contents, highlighted code and diagrams drawn
as SVG. The site needs no network and works when opened from file://.

With --ipynb, write each lesson, whichever way it is written, as a Jupyter
notebook that runs top to bottom in Jupyter and Colab: a first cell shows
nvcc and the GPU, files are %%writefile cells, commands ! cells (nvcc with
no architecture builds for the GPU it runs on: -arch=native), diagrams
mermaid blocks, and each exercise follows its lesson with its files and a
cell that builds, runs and (where output alone decides) checks it.`,
		Example: "  lessons export --html site && xdg-open site/index.html\n  lessons export --ipynb notebooks",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.HTML == "" && opts.Ipynb == "" {
				return usagef("say where to write the site: lessons export --html DIR (or --ipynb DIR for notebooks)")
			}
			if runF != nil {
				return runF(opts)
			}
			return exportRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.HTML, "html", "", "write an HTML site into `DIR`")
	cmd.Flags().StringVar(&opts.Ipynb, "ipynb", "", "write the lessons as Jupyter notebooks into `DIR`")
	return cmd
}

func exportRun(opts *ExportOptions) error {
	c, err := opts.g.course()
	if err != nil {
		return err
	}
	if opts.Ipynb != "" {
		wrote, err := render.Notebooks(c, opts.Ipynb)
		if err != nil {
			return err
		}
		fmt.Fprint(opts.IO.Out, render.Said(wrote, opts.Ipynb))
	}
	if opts.HTML == "" {
		return nil
	}
	if err := render.Export(c, opts.HTML); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "wrote %d lessons to %s; open %s\n", len(c.Lessons), opts.HTML, filepath.Join(opts.HTML, "index.html"))
	return nil
}
