package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/render"
)

// ExportOptions are the inputs of lessons export.
type ExportOptions struct {
	IO   *IOStreams
	g    *globals
	HTML string
}

func newExport(io *IOStreams, g *globals, runF func(*ExportOptions) error) *cobra.Command {
	opts := &ExportOptions{IO: io, g: g}
	cmd := &cobra.Command{
		Use:   "export --html DIR",
		Short: "Write the course as a static site",
		Long: `Write the whole course as a static HTML site: a page per lesson with
previous/next links, a table of contents, highlighted code and diagrams drawn
as SVG. The site needs no network and works when opened from file://.`,
		Example: "  lessons export --html site && xdg-open site/index.html",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.HTML == "" {
				return usagef("say where to write the site: lessons export --html DIR")
			}
			if runF != nil {
				return runF(opts)
			}
			return exportRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.HTML, "html", "", "write an HTML site into `DIR`")
	return cmd
}

func exportRun(opts *ExportOptions) error {
	c, err := opts.g.course()
	if err != nil {
		return err
	}
	if err := render.Export(c, opts.HTML); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "wrote %d lessons to %s; open %s\n", len(c.Lessons), opts.HTML, filepath.Join(opts.HTML, "index.html"))
	return nil
}
