// Package ui holds the small pieces of terminal output that several
// packages draw the same way: colours, the clear-screen sequence, a
// progress bar, and counted nouns.
package ui

import (
	"fmt"
	"strings"
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

// Printable is text the reader did not write (a lesson's or notebook's
// prose, titles, file, cell and kernel names, its recorded output, a
// student's compiler errors and program output in a grade or its
// feedback) made safe for a terminal, an editor or a page. It is the one
// function every such byte goes through on its way to a terminal:
// escape sequences (CSI colours, but also OSC: a window title, a link,
// the clipboard with OSC 52; DCS, APC, and an ESC left alone) are
// dropped; any other control character but a tab or a newline (C0, DEL,
// C1 such as the one-byte CSI U+009B, NUL) and the bidirectional
// overrides and isolates that make text read in another order than it
// runs (U+202A-U+202E, U+2066-U+2069) are shown as U+FFFD; bytes that
// are not UTF-8 are shown as U+FFFD too. A CR ends a line (see clean).
func Printable(s string) string {
	out, _ := clean(s, false, true)
	return out
}

// bidiControl tells whether r changes the order text is shown in: the
// embeddings, overrides and isolates of Unicode's bidirectional
// algorithm ("Trojan Source").
func bidiControl(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
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
