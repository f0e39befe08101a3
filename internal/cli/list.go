package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/lesson"
)

// ListOptions are the inputs of lessons list.
type ListOptions struct {
	IO *IOStreams
	g  *globals
}

func newList(io *IOStreams, g *globals, runF func(*ListOptions) error) *cobra.Command {
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
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DAY\tLESSON\tTITLE\tEXERCISES")
	var errs lesson.Errors
	progress, err := loadProgress(c)
	if err != nil {
		return err
	}
	for _, e := range c.Lessons {
		l, err := c.Parse(e)
		title := e.Title
		if l != nil {
			title = l.Title
		}
		if err != nil {
			es := lesson.AsErrors(err)
			if es == nil {
				return err
			}
			errs = append(errs, es...)
			title += " (has errors)"
		}
		var ids []string
		for _, x := range e.Exercises {
			if _, done := progress.Passed[x.ID]; done {
				ids = append(ids, x.ID+" ✓")
			} else {
				ids = append(ids, x.ID)
			}
		}
		ex := "-"
		if len(ids) > 0 {
			ex = strings.Join(ids, ", ")
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", e.Day, e.Slug, title, ex)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "\n%s: %d lessons, %d exercises, %d passed\n", c.Title, len(c.Lessons), len(c.Exercises), len(progress.Passed))
	return errs.Err()
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments, got %q", cmd.Name(), strings.Join(args, " "))
	}
	return nil
}
