package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/charmbracelet/glamour"

	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/mermaid"
	"github.com/cudalessons/lessons/internal/ui"
)

// TermOptions say how to draw for a terminal.
type TermOptions struct {
	// Width is the column to wrap prose at.
	Width int
	// Color turns on ANSI colors and styles.
	Color bool
	// TrueColor uses 24-bit colors for code, where the terminal has them
	// ($COLORTERM). The 256-color palette is matched to the nearest entry.
	TrueColor bool
}

// Term draws lessons for a terminal. One Term can draw many lessons.
type Term struct {
	opt   TermOptions
	prose *glamour.TermRenderer
}

// NewTerm makes a terminal renderer.
func NewTerm(opt TermOptions) (*Term, error) {
	if opt.Width <= 0 {
		opt.Width = 80
	}
	style := "notty"
	if opt.Color {
		style = "dark"
	}
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(opt.Width-4),
		glamour.WithChromaFormatter(opt.formatter()))
	if err != nil {
		return nil, err
	}
	return &Term{opt: opt, prose: r}, nil
}

// Render writes the whole lesson.
func (t *Term) Render(w io.Writer, l *lesson.Lesson) error {
	for i := range l.Cells {
		if err := t.Cell(w, &l.Cells[i]); err != nil {
			return err
		}
	}
	return nil
}

// Cell writes one cell.
func (t *Term) Cell(w io.Writer, c *lesson.Cell) error {
	switch c.Kind {
	case lesson.Markdown:
		out, err := t.prose.Render(c.Text)
		if err != nil {
			return fmt.Errorf("render line %d: %w", c.Line, err)
		}
		if !t.opt.Color {
			out = trimLines(out)
		}
		_, err = io.WriteString(w, out)
		return err
	case lesson.Diagram:
		return t.diagram(w, c)
	default:
		return t.code(w, c)
	}
}

func (t *Term) label(c *lesson.Cell) string {
	if c.Number > 0 {
		return fmt.Sprintf("[%d] %s", c.Number, c.Label)
	}
	return c.Lang
}

func (t *Term) code(w io.Writer, c *lesson.Cell) error {
	var b strings.Builder
	if lbl := t.label(c); lbl != "" {
		b.WriteString("  ")
		b.WriteString(t.style("1;36", lbl))
		b.WriteByte('\n')
	}
	body := strings.TrimRight(c.Text, "\n")
	if t.opt.Color {
		var hl strings.Builder
		it, err := lexer(c.Lang).Tokenise(nil, body)
		if err == nil {
			err = formatters.Get(t.opt.formatter()).Format(&hl, styles.Get("monokai"), it)
		}
		if err == nil {
			body = hl.String()
		}
	}
	bar := t.style("2", "│")
	for _, line := range strings.Split(body, "\n") {
		b.WriteString("  ")
		b.WriteString(bar)
		b.WriteByte(' ')
		b.WriteString(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

func (t *Term) diagram(w io.Writer, c *lesson.Cell) error {
	g, err := mermaid.Parse(c.Text)
	if err != nil {
		fmt.Fprintf(w, "  %s\n", t.style("33", fmt.Sprintf("(line %d: this diagram cannot be drawn in a terminal: %v)", c.Line, err)))
		return t.code(w, c)
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(g.Layout(t.opt.Width-4).Text(), "\n"), "\n") {
		b.WriteString("  ")
		b.WriteString(t.style("36", line))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	_, err = io.WriteString(w, b.String())
	return err
}

func (t *Term) style(sgr, s string) string {
	return ui.Style(t.opt.Color, sgr, s)
}

// trimLines drops the padding glamour puts at the end of every line.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

func (o TermOptions) formatter() string {
	if o.TrueColor {
		return "terminal16m"
	}
	return "terminal256"
}
