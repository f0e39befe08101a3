package study

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/mattn/go-runewidth"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/mermaid"
	"github.com/cudalessons/lessons/internal/progress"
	"github.com/cudalessons/lessons/internal/render"
	"github.com/cudalessons/lessons/internal/ui"
)

// WriteList writes lessons list's table of course c, within width
// columns (80 at the most):
// a row per lesson with its day, slug, title and exercises (those p has
// passed ticked), then a line that counts them. A lesson that does not
// parse is listed, marked, and its errors returned.
func WriteList(w io.Writer, width int, c *course.Course, p *progress.Progress) error {
	type row struct {
		day, slug, title string
		ids              []string
	}
	var rows []row
	var errs lesson.Errors
	slugW, idW := len("LESSON"), len("EXERCISES")
	for _, e := range c.Lessons {
		l, err := c.Parse(e)
		title := e.Title
		if l != nil {
			title = l.Title
		}
		title = render.WithoutDay(title)
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
			if _, done := p.Passed[x.ID]; done {
				ids = append(ids, x.ID+" ✓")
			} else {
				ids = append(ids, x.ID)
			}
		}
		if len(ids) == 0 {
			ids = []string{"-"}
		}
		for _, id := range ids {
			idW = max(idW, runewidth.StringWidth(id))
		}
		slugW = max(slugW, len(e.Slug))
		rows = append(rows, row{strconv.Itoa(e.Day), e.Slug, title, ids})
	}
	// At most 80 wide: titles wrap in the room left, exercises one a line.
	width = min(width, 80)
	slugW = min(slugW, max(width-5-(idW+2)-20-2, 12)) // a longer slug wraps at its dashes
	titleW := max(width-5-(slugW+2)-(idW+2), 20)
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DAY\tLESSON\tTITLE\tEXERCISES")
	for _, r := range rows {
		lines := mermaid.Wrap(r.title, titleW)
		slugs := []string{r.slug}
		if len(r.slug) > slugW {
			slugs = mermaid.Wrap(strings.ReplaceAll(r.slug, "-", "- "), slugW+1)
			for i := range slugs {
				slugs[i] = strings.ReplaceAll(slugs[i], "- ", "-")
			}
		}
		for i := 0; i < max(len(lines), len(r.ids), len(slugs)); i++ {
			day, slug, title, id := "", "", "", ""
			if i == 0 {
				day = r.day
			}
			if i < len(slugs) {
				slug = slugs[i]
			}
			if i < len(lines) {
				title = lines[i]
			}
			if i < len(r.ids) {
				id = r.ids[i]
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", day, slug, title, id)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, line := range strings.SplitAfter(table.String(), "\n") {
		// a row with no exercise would end in the title column's padding
		fmt.Fprint(w, strings.TrimRight(line, " \n")+line[len(strings.TrimRight(line, "\n")):])
	}
	fmt.Fprintf(w, "\n%s\n", ui.Fit(fmt.Sprintf("%s: %d lessons, %d exercises, %d passed", c.Title, len(c.Lessons), len(c.Exercises), len(p.Passed)), width))
	return errs.Err()
}
