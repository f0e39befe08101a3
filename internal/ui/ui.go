// Package ui holds the small pieces of terminal output that several
// packages draw the same way: colours, the clear-screen sequence, a
// progress bar, and counted nouns.
package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// ClearScreen clears a terminal and puts the cursor at its top left.
const ClearScreen = "\x1b[2J\x1b[H"

// Style wraps s in the SGR sequence sgr ("31" red, "1;34" bold blue)
// when color is on; it leaves s as it is otherwise, and an empty s empty.
func Style(color bool, sgr, s string) string {
	if !color || s == "" {
		return s
	}
	return "\x1b[" + sgr + "m" + s + "\x1b[0m"
}

// Bar draws done of total as width cells: [████░░░░].
func Bar(done, total, width int) string {
	if total <= 0 {
		return ""
	}
	n := min(max(done, 0)*width/total, width)
	return "[" + strings.Repeat("█", n) + strings.Repeat("░", width-n) + "]"
}

// Count is "1 student" or "N students" (of any noun with a plain plural).
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Printable is text the reader did not write (a notebook's recorded
// output, a student's compiler errors and program output in a grade or
// its feedback) made safe for a terminal, an editor or a page: escape
// sequences (colours, but also a window title or the clipboard, OSC 52)
// are dropped, and any other control character but a tab or a newline
// is shown as U+FFFD.
func Printable(s string) string {
	s = ansi.Strip(s)
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || (r >= 0x20 && r != 0x7f && (r < 0x80 || r > 0x9f)) {
			return r
		}
		return '\uFFFD'
	}, s)
}

// Clip is s on one line, printable (see Printable), cut to n characters
// with an ellipsis.
func Clip(s string, n int) string {
	s = strings.ReplaceAll(Printable(s), "\n", " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
