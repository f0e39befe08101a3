package render

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/ui"
)

// What a .ipynb lesson has that markdown has not: recorded outputs,
// attachments and embedded images, notes on cells. A .ipynb lesson has no
// document AST (each markdown cell is its own document), so its page is
// drawn cell by cell.

var dataURIRE = regexp.MustCompile(`data:(image/[a-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]*)`)

// notebookCell draws a cell read from a .ipynb file, or prose with
// embedded images, for a terminal.
func (t *Term) notebookCell(w io.Writer, c *lesson.Cell) error {
	if strings.TrimSpace(c.Text) == "" && len(c.Outputs) == 0 && c.CUDA == nil {
		if c.Note != "" {
			// a cell with no source that lessons does not run (one of
			// a later nbformat's types) is not left out in silence
			_, err := fmt.Fprintf(w, "  %s\n\n", t.style("33", "("+c.Note+")"))
			return err
		}
		return nil
	}
	if c.Kind == lesson.Markdown {
		// wrapped at the measure as a markdown lesson's prose is: a
		// notebook's paragraphs are often one line each
		cc := *c
		cc.Text = mathAsCode(termImages(c))
		lines, _, err := t.markdown(&cc)
		if err != nil {
			return err
		}
		out := strings.Join(lines, "\n")
		if !t.opt.Color {
			out = trimLines(out)
		}
		_, err = io.WriteString(w, out)
		return err
	}
	cc := *c
	cc.From = nil
	if err := t.Cell(w, &cc); err != nil {
		return err
	}
	var b strings.Builder
	if c.Note != "" {
		fmt.Fprintf(&b, "  %s\n", t.style("33", "("+c.Note+")"))
	}
	for _, o := range c.Outputs {
		b.WriteString("  " + t.style("2", outputLabel(o)) + "\n")
		if o.MIME != "" {
			fmt.Fprintf(&b, "  %s %s\n", t.style("2", "┆"), imageName(o.MIME, o.Data, "shown in the site"))
			continue
		}
		lines := t.capOutput(o.Text)
		for _, line := range lines {
			fmt.Fprintf(&b, "  %s %s\n", t.style("2", "┆"), line)
		}
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// What a terminal is shown of one recorded output, at most: its lines
// (a loop that printed 100,000), the bytes of one line (a 12 MB line of
// a printed array was shown whole), and its bytes in all.
const (
	maxOutputLines = 60
	maxLineBytes   = 1 << 10
	maxOutputBytes = 16 << 10
)

// capOutput is what a terminal is shown of a recorded output's text,
// made printable: its start and its end, as a notebook's scrolled output
// area shows them, within maxOutputLines lines and maxOutputBytes bytes,
// each line within maxLineBytes; each cut says what it left out.
func (t *Term) capOutput(text string) []string {
	text = strings.TrimRight(text, "\n")
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if len(line) > maxLineBytes {
			keep := cutBytes(line, maxLineBytes)
			lines[i] = ui.Printable(keep) + t.style("2", fmt.Sprintf(" … %s more on this line", byteSize(len(line)-len(keep))))
		} else {
			lines[i] = ui.Printable(line)
		}
	}
	head, tail := len(lines), 0
	if len(lines) > maxOutputLines {
		head, tail = maxOutputLines-10, 10
	}
	// the bytes: three quarters for the start, a quarter for the end
	size := 0
	for i := 0; i < head; i++ {
		if size += len(lines[i]) + 1; size > maxOutputBytes*3/4 && i > 0 {
			head, tail = i, min(max(tail, 1), len(lines)-i)
			break
		}
	}
	size = 0
	for i := 0; i < tail; i++ {
		if size += len(lines[len(lines)-1-i]) + 1; size > maxOutputBytes/4 {
			tail = i
			break
		}
	}
	if head+tail >= len(lines) {
		return lines
	}
	n, more := len(lines)-head-tail, 0
	for _, l := range lines[head : len(lines)-tail] {
		more += len(l) + 1
	}
	cut := t.style("2", fmt.Sprintf("… %d lines more, %s (all of them in the notebook, and in the site)", n, byteSize(more)))
	return append(append(lines[:head:head], cut), lines[len(lines)-tail:]...)
}

// cutBytes is s cut to at most n bytes, at a character's start.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func outputLabel(o lesson.Output) string {
	switch {
	case o.Type == "stream" && o.Name == "stderr":
		return "recorded output (stderr):"
	case o.Type == "error":
		return "recorded error (" + o.Name + "):"
	case o.Type == "execute_result":
		return "recorded result:"
	}
	return "recorded output:"
}

// imageName says what an image is, for a terminal: its type and size.
func imageName(mime, b64, where string) string {
	size := len(strings.Join(strings.Fields(b64), "")) * 3 / 4
	return fmt.Sprintf("[%s, %s, %s]", mime, byteSize(size), where)
}

func byteSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// termImages names a markdown cell's attachments and embedded images in
// its text, instead of printing pages of base64.
func termImages(c *lesson.Cell) string {
	s := dataURIRE.ReplaceAllStringFunc(c.Text, func(m string) string {
		sub := dataURIRE.FindStringSubmatch(m)
		return "embedded " + imageName(sub[1], sub[2], "shown in the site")
	})
	for _, a := range c.Attachments {
		ref := "attachment:" + a.Name
		if strings.Contains(s, ref) {
			s = strings.ReplaceAll(s, ref, ref+" "+imageName(a.MIME, a.Data, "shown in the site"))
		}
	}
	return s
}

// cellsHTML is PageHTML for a lesson with no document AST: a .ipynb.
func cellsHTML(w io.Writer, l *lesson.Lesson) error {
	diagrams := 0
	for i := range l.Cells {
		c := &l.Cells[i]
		if strings.TrimSpace(c.Text) == "" && len(c.Outputs) == 0 && c.CUDA == nil {
			if err := outputsHTML(w, c); err != nil { // its note, if any
				return err
			}
			continue
		}
		if c.Kind == lesson.Markdown {
			text := mathAsCode(c.Text)
			for _, a := range c.Attachments {
				text = strings.ReplaceAll(text, "attachment:"+a.Name, "data:"+a.MIME+";base64,"+a.Data)
			}
			var b bytes.Buffer
			if err := markdownCellHTML(&b, []byte(text)); err != nil {
				return err
			}
			if _, err := w.Write(b.Bytes()); err != nil {
				return err
			}
			continue
		}
		if c.Kind == lesson.Diagram {
			diagrams++
		}
		if err := writeCell(w, c, fmt.Sprintf("diagram-%d", diagrams)); err != nil {
			return err
		}
		if err := outputsHTML(w, c); err != nil {
			return err
		}
	}
	return nil
}

// outputsHTML writes a cell's note and recorded outputs, marked as recorded.
func outputsHTML(w io.Writer, c *lesson.Cell) error {
	if c.Note != "" {
		fmt.Fprintf(w, "<p class=\"cell-note\">%s</p>\n", html.EscapeString(c.Note))
	}
	for _, o := range c.Outputs {
		fmt.Fprintf(w, "<div class=\"output recorded output-%s\"><div class=\"cell-label\">%s</div>", html.EscapeString(o.Type), html.EscapeString(strings.TrimSuffix(outputLabel(o), ":")))
		if o.MIME != "" {
			fmt.Fprintf(w, "<img alt=\"recorded %s\" src=\"data:%s;base64,%s\">", html.EscapeString(o.MIME), html.EscapeString(o.MIME), html.EscapeString(strings.Join(strings.Fields(o.Data), "")))
		} else {
			fmt.Fprintf(w, "<pre>%s</pre>", html.EscapeString(strings.TrimRight(o.Text, "\n")))
		}
		if _, err := io.WriteString(w, "</div>\n"); err != nil {
			return err
		}
	}
	return nil
}
