package render

import (
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/ui"
)

// printableCell is c as the terminal may show it: every text of the
// lesson's own (prose, code, its label, file name, note, language, its
// recorded outputs' and attachments' names and types) through
// ui.Printable, the one sanitiser, so that a notebook's escape sequences,
// control characters and bidirectional overrides never reach the
// terminal. The styles the renderer adds come after.
func printableCell(c *lesson.Cell) *lesson.Cell {
	p := *c
	p.Text, p.Label, p.Name, p.Note, p.Lang, p.Flags = ui.Printable(c.Text), ui.Printable(c.Label), ui.Printable(c.Name), ui.Printable(c.Note), ui.Printable(c.Lang), ui.Printable(c.Flags)
	if len(c.Outputs) > 0 {
		p.Outputs = make([]lesson.Output, len(c.Outputs))
		for i, o := range c.Outputs {
			o.Text, o.Name, o.MIME = ui.Printable(o.Text), ui.Printable(o.Name), ui.Printable(o.MIME)
			p.Outputs[i] = o
		}
	}
	if len(c.Attachments) > 0 {
		p.Attachments = make([]lesson.Attachment, len(c.Attachments))
		for i, a := range c.Attachments {
			a.Name, a.MIME = ui.Printable(a.Name), ui.Printable(a.MIME)
			p.Attachments[i] = a
		}
	}
	return &p
}
