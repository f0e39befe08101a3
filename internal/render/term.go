package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/charmbracelet/glamour"
	glamstyles "github.com/charmbracelet/glamour/styles"
	"github.com/charmbracelet/x/ansi"

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
	// PythonWay, when set, says under each Python cell how it runs on
	// this machine ("Python 3.12, no Jupyter kernel: ...").
	PythonWay string
}

// Term draws lessons for a terminal. One Term can draw many lessons.
type Term struct {
	opt    TermOptions
	prose  *glamour.TermRenderer
	tables *glamour.TermRenderer
}

// NewTerm makes a terminal renderer.
func NewTerm(opt TermOptions) (*Term, error) {
	if opt.Width <= 0 {
		opt.Width = 80
	}
	opt.PythonWay = ui.Printable(opt.PythonWay) // it can hold the notebook's kernel name
	style := glamstyles.NoTTYStyleConfig
	if opt.Color {
		style = glamstyles.DarkStyleConfig
		// Inline code is set off by its background: the padding spaces
		// glamour puts round it would indent a paragraph that starts with
		// code, and leave the comma after it alone at a line's start.
		style.Code.Prefix, style.Code.Suffix = "", ""
	}
	// glamour wraps no prose itself (it strands words after inline code
	// and bold, and drops list indentation); wrap does it afterwards.
	r, err := glamour.NewTermRenderer(glamour.WithStyles(style), glamour.WithWordWrap(0),
		glamour.WithChromaFormatter(opt.formatter()))
	if err != nil {
		return nil, err
	}
	// Tables are glamour's to fit: a table too wide is drawn again by a
	// renderer that wraps at the terminal's width, and taken from there.
	tables, err := glamour.NewTermRenderer(glamour.WithStyles(style), glamour.WithWordWrap(opt.Width-4),
		glamour.WithChromaFormatter(opt.formatter()))
	if err != nil {
		return nil, err
	}
	return &Term{opt: opt, prose: r, tables: tables}, nil
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
	c = printableCell(c)
	if c.From != nil || c.Kind == lesson.Markdown && strings.Contains(c.Text, "data:image/") {
		return t.notebookCell(w, c)
	}
	switch c.Kind {
	case lesson.Markdown:
		lines, _, err := t.markdown(c)
		if err != nil {
			return err
		}
		out := strings.Join(lines, "\n")
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

// markdown draws a markdown cell: glamour draws it whole, unwrapped;
// its prose is wrapped at the measure, its tables fitted to the width,
// and its code blocks keep their lines. It returns the lines and what
// each is.
func (t *Term) markdown(c *lesson.Cell) ([]string, []lineKind, error) {
	src := unbreak(c.Text)
	out, err := t.prose.Render(keepAmps(src))
	if err != nil {
		return nil, nil, fmt.Errorf("render line %d: %w", c.Line, err)
	}
	out = strings.ReplaceAll(out, ampMark, "&")
	lines := strings.Split(out, "\n")
	blocks := tableBlocks(lines)
	if tooWide(lines, blocks, t.opt.Width) {
		// Unmarked: glamour's wrapping of a table's cells sizes a marked
		// code span's rows wrongly (blank rows), and a table's "&" is
		// rarely the start of an entity glamour knows.
		fitted, err := t.tables.Render(src)
		if err != nil {
			return nil, nil, fmt.Errorf("render line %d: %w", c.Line, err)
		}
		flines := strings.Split(fitted, "\n")
		if fblocks := tableBlocks(flines); len(fblocks) == len(blocks) {
			lines, blocks = spliceTables(lines, blocks, flines, fblocks)
		}
	}
	lines, kinds := wrapOutside(lines, blocks, codeBlocks(lines, src), t.measure(), t.opt.Width)
	return lines, kinds, nil
}

// maxCodePieces is how many rows one line of code is wrapped into, at
// most, in a terminal.
const maxCodePieces = 6

// Measure is the widest prose line drawn, whatever the terminal's width:
// lines much longer than about 80 characters are hard to read (a book's
// measure; glow and mdBook cap theirs too). Code and tables use the
// whole width.
const Measure = 80

func (t *Term) measure() int { return min(t.opt.Width, Measure) }

func (t *Term) label(c *lesson.Cell) string {
	switch {
	case c.CUDA != nil:
		return fmt.Sprintf("[%d] %s", c.Number, c.Label)
	case c.Kind == lesson.Command && strings.Contains(c.Text, "\n") && strings.HasPrefix(c.Label, "%%"):
		// the cell's magic (%%bash, %%script bash) is its first line
		return fmt.Sprintf("[%d] %s", c.Number, c.Label)
	case c.Kind == lesson.Command && strings.Contains(c.Text, "\n"):
		// the commands are the body; the label only numbers them
		return fmt.Sprintf("[%d] commands", c.Number)
	case c.Kind == lesson.Python:
		return fmt.Sprintf("[%d] python", c.Number)
	case c.Number > 0:
		return fmt.Sprintf("[%d] %s", c.Number, c.Label)
	}
	// A block that is not a cell is an example to read: its gutter and
	// colors set it off, and a language on a line of its own would read
	// as part of the prose.
	return ""
}

func (t *Term) code(w io.Writer, c *lesson.Cell) error {
	var b strings.Builder
	if lbl := t.label(c); lbl != "" {
		// a long command wraps under itself, past its number
		hang := 2 + strings.Index(lbl, " ") + 1
		b.WriteString(strings.Join(wrapLine("  "+t.style("1;36", lbl), t.opt.Width, hang), "\n"))
		b.WriteByte('\n')
	}
	body := strings.TrimRight(ui.Printable(c.Text), "\n")
	if c.Bang && strings.Contains(body, "\n") {
		body = lesson.BangSource(body, nil) // shown as the notebook has it: each command a ! line
	}
	if c.Kind == lesson.Command && !strings.Contains(body, "\n") && strings.Contains(c.Label, body) {
		// a one-line command is its label: shown once (not a %%sh cell's,
		// whose label is the magic)
		_, err := io.WriteString(w, b.String()+"\n")
		return err
	}
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
	// A line wider than the terminal is wrapped near its width, between
	// tokens, and each piece after the first has ↪ in the gutter instead
	// of │.
	bar, more := t.style("2", "│"), t.style("2", "↪")
	room := max(t.opt.Width-4, 8)
	for _, line := range strings.Split(body, "\n") {
		pieces := wrapCode(line, room)
		if len(pieces) > maxCodePieces {
			// a data literal (a base64 archive in a setup cell) would
			// fill screens: its start, and what is left out
			n := ansi.StringWidth(line)
			pieces = append(pieces[:maxCodePieces-1:maxCodePieces-1], t.style("2", fmt.Sprintf("… a line of %d characters, cut here (the cell has it whole)", n)))
		}
		for i, piece := range pieces {
			b.WriteString("  ")
			if i == 0 {
				b.WriteString(bar)
			} else {
				b.WriteString(more)
			}
			b.WriteByte(' ')
			b.WriteString(piece)
			b.WriteByte('\n')
		}
	}
	if c.Kind == lesson.Python && t.opt.PythonWay != "" {
		b.WriteString("  " + t.style("2", "runs in "+t.opt.PythonWay) + "\n")
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
	drawn := strings.Split(strings.TrimRight(g.Layout(t.opt.Width-4).Text(), "\n"), "\n")
	for _, line := range drawn {
		if strings.ContainsAny(line, boxRunes) && ansi.StringWidth(line) > t.opt.Width-2 {
			// Even drawn as narrow as it goes, it would break at the
			// terminal's edge: its edges, in words, say the same.
			return t.edgeList(w, g)
		}
	}
	for _, line := range drawn {
		if !strings.ContainsAny(line, boxRunes) {
			// a caption under the drawing (a loop-back, a label with no
			// room on its edge) wraps like prose
			for _, l := range wrapLine("  "+line, t.opt.Width, 6) {
				b.WriteString(t.style("36", l) + "\n")
			}
			continue
		}
		b.WriteString("  ")
		b.WriteString(t.style("36", line))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	_, err = io.WriteString(w, b.String())
	return err
}

// boxRunes are what a diagram's drawing is made of; its captions have none.
const boxRunes = "│─┌┐└┘├┤┬┴┼╭╮╰╯╱╲▼┊"

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

// edgeList writes a diagram as the list of its edges, by node labels.
func (t *Term) edgeList(w io.Writer, g *mermaid.Graph) error {
	var b strings.Builder
	for _, line := range strings.Split(wrap("  (diagram too wide for this terminal; its edges:)", t.opt.Width), "\n") {
		b.WriteString(t.style("2", line) + "\n")
	}
	for _, e := range g.EdgeTexts() {
		b.WriteString(wrap("  • "+e, t.opt.Width) + "\n")
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// ampMark stands for an "&" that glamour would take for the start of an
// entity: it decodes text and code spans again with html.UnescapeString,
// which also knows entities without their ";" (`f(&params)` came out
// "f(¶ms)"; charmbracelet/glamour#94). A letter no lesson writes (not
// wrap.go's hardBreak).
const ampMark = "\ua74f"

// keepAmps marks, outside fenced code blocks, every "&" of a code span,
// and every "&" of prose that does not begin a reference CommonMark
// decodes ("&copy;", "&#169;"), so that glamour draws them as written.
func keepAmps(src string) string {
	if !strings.Contains(src, "&") {
		return src
	}
	var b strings.Builder
	fence := ""
	for _, line := range strings.SplitAfter(src, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			fence = trimmed[:3]
			b.WriteString(line)
			continue
		}
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			b.WriteString(line)
			continue
		}
		b.WriteString(markAmps(line))
	}
	return b.String()
}

// markAmps is keepAmps for one line of prose: a code span is a run of
// backticks up to the next run of as many.
func markAmps(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] == '`' {
			n := 0
			for i+n < len(line) && line[i+n] == '`' {
				n++
			}
			run := line[i : i+n]
			end := -1
			for j := i + n; j < len(line); {
				k := strings.Index(line[j:], run)
				if k < 0 {
					break
				}
				k += j
				m := k
				for m < len(line) && line[m] == '`' {
					m++
				}
				if m-k == n {
					end = k
					break
				}
				j = m
			}
			if end < 0 {
				b.WriteString(run)
				i += n
				continue
			}
			b.WriteString(run)
			b.WriteString(strings.ReplaceAll(line[i+n:end], "&", ampMark))
			b.WriteString(run)
			i = end + n
			continue
		}
		if line[i] == '&' && !entityAt(line[i:]) {
			b.WriteString(ampMark)
			i++
			continue
		}
		b.WriteByte(line[i])
		i++
	}
	return b.String()
}

// entityAt tells whether s begins with a reference CommonMark decodes:
// "&name;", "&#123;" or "&#x1F;".
func entityAt(s string) bool {
	j := 1
	if j < len(s) && s[j] == '#' {
		j++
		if j < len(s) && (s[j] == 'x' || s[j] == 'X') {
			j++
		}
	}
	start := j
	for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
		j++
	}
	return j > start && j < len(s) && s[j] == ';'
}
