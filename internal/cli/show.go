package cli

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/iostreams"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/render"
)

// ShowOptions are the inputs of lessons show.
type ShowOptions struct {
	IO      *iostreams.IOStreams
	g       *globals
	Lesson  string
	Plain   bool
	Width   int
	NoPager bool
}

func newShow(io *iostreams.IOStreams, g *globals, runF func(*ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{IO: io, g: g}
	cmd := &cobra.Command{
		Use:   "show LESSON",
		Short: "Show a lesson in the terminal",
		Long: `Show a lesson in the terminal: headings, lists, tables, highlighted code,
notebook cells numbered as they run, and diagrams drawn as boxes and arrows.

LESSON is a day (87), dayNNN (day087), a slug or a unique part of one
(stream-ordered), or the path of any markdown file or notebook export.
Output is plain when stdout is not a terminal, with --plain, or when
NO_COLOR is set. On a terminal, a lesson longer than the screen goes
through $PAGER (less -R when unset; PAGER=cat or --no-pager for none).`,
		Example: "  lessons show 87\n  lessons show day068\n  lessons show stream-ordered\n  lessons show ../shared/seeds/002_742c26890dfac7c0.txt | less",
		Args:    argsUnless(func(n int) bool { return n != 1 }, "show takes one lesson: a day, dayNNN, slug or path"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Lesson = args[0]
			if runF != nil {
				return runF(opts)
			}
			return showRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Plain, "plain", false, "no colors or styles")
	cmd.Flags().IntVar(&opts.Width, "width", 0, "wrap at this many columns (default: the terminal's width)")
	cmd.Flags().BoolVar(&opts.NoPager, "no-pager", false, "write straight to the terminal, without $PAGER")
	return cmd
}

func showRun(opts *ShowOptions) error {
	l, _, err := opts.g.resolve(opts.Lesson)
	if err != nil {
		return err
	}
	printWarnings(opts.IO, l.Warnings)
	width := opts.Width
	if width <= 0 {
		width = min(opts.IO.Width(), 120)
	}
	topt := render.TermOptions{Width: width, Color: opts.IO.Color() && !opts.Plain, TrueColor: opts.IO.TrueColor()}
	if l.HasPython() {
		topt.PythonWay = notebook.WithKernel(context.Background(), notebook.Env{}, l.Kernel).PythonWay
	}
	t, err := render.NewTerm(topt)
	if err != nil {
		return err
	}
	var out strings.Builder
	if err := t.Render(&out, l); err != nil {
		return err
	}
	if opts.NoPager {
		_, err = io.WriteString(opts.IO.SafeOut(), out.String())
		return err
	}
	return opts.IO.Page(out.String())
}

// resolve finds a lesson by path, or in the course by day or slug, and
// gives the course too when the lesson came from one.
func (g *globals) resolve(q string) (*lesson.Lesson, *course.Course, error) {
	return course.Lookup(q, g.course)
}
