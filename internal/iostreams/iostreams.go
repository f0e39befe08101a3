// Package iostreams is all the terminal I/O of a command, as gh's is:
// the streams, whether each is a terminal, its width and colors, and the
// pager; tests give it buffers and say whether it is a terminal.
package iostreams

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"

	"github.com/cudalessons/lessons/internal/ui"
)

// IOStreams is all the terminal I/O of a command: tests give it buffers and
// say whether it is a terminal.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	outTTY  bool
	errTTY  bool
	noColor bool
	width   int
	height  int
}

// System returns the process's streams, with what the terminal says of itself.
func System() *IOStreams {
	s := &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	fd := int(os.Stdout.Fd())
	s.outTTY = term.IsTerminal(fd)
	s.errTTY = term.IsTerminal(int(os.Stderr.Fd()))
	if w, h, err := term.GetSize(fd); err == nil && w > 0 {
		s.width, s.height = w, h
	}
	_, s.noColor = os.LookupEnv("NO_COLOR")
	if os.Getenv("TERM") == "dumb" {
		s.noColor = true
	}
	return s
}

// Test returns streams over buffers: not a terminal, 80 columns.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, width: 80, height: 24}, in, out, errOut
}

// SetTTY says whether stdout is a terminal (for tests).
func (s *IOStreams) SetTTY(tty bool) { s.outTTY = tty }

// SetWidth says how wide the terminal is (for tests).
func (s *IOStreams) SetWidth(w int) { s.width = w }

// SetStderrTTY says whether stderr is a terminal (for tests).
func (s *IOStreams) SetStderrTTY(tty bool) { s.errTTY = tty }

// IsStderrTTY reports whether stderr is a terminal, where progress is drawn.
func (s *IOStreams) IsStderrTTY() bool { return s.errTTY }

// IsTTY reports whether stdout is a terminal.
func (s *IOStreams) IsTTY() bool { return s.outTTY }

// Color reports whether to color output: on a terminal, unless NO_COLOR is set.
func (s *IOStreams) Color() bool { return s.outTTY && !s.noColor }

// TrueColor reports whether the terminal says it shows 24-bit color.
func (s *IOStreams) TrueColor() bool {
	c := os.Getenv("COLORTERM")
	return c == "truecolor" || c == "24bit"
}

// Width is the terminal's width, or $COLUMNS, or 80.
func (s *IOStreams) Width() int {
	if s.width > 0 {
		return s.width
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 20 {
		return n
	}
	return 80
}

// SafeOut is stdout for what a lesson, a notebook or its programs send
// to a terminal: made safe on its way (ui.SafeWriter: escape sequences
// but colours dropped, control characters and bidirectional overrides
// shown as U+FFFD). Close it to write what a cut sequence left held.
func (s *IOStreams) SafeOut() *ui.SafeWriter { return ui.NewSafeWriter(s.Out) }

// Page writes text to stdout through a pager, as git does: only when stdout
// is a terminal and the text is longer than the screen, with $PAGER
// (run by the shell, so it may carry flags), else less -R. An empty $PAGER
// or cat means no pager; a pager that cannot start leaves the text
// written directly.
// The text is a lesson's: it is made safe for the terminal (ui.Safe).
func (s *IOStreams) Page(text string) error {
	text = ui.Safe(text)
	pager, set := os.LookupEnv("PAGER")
	if !set {
		pager = "less -R"
	}
	if !s.outTTY || s.height <= 0 || strings.Count(text, "\n") < s.height ||
		strings.TrimSpace(pager) == "" || strings.TrimSpace(pager) == "cat" {
		_, err := io.WriteString(s.Out, text)
		return err
	}
	if !ui.Page(pager, text, s.Out) {
		_, err := io.WriteString(s.Out, text)
		return err
	}
	return nil
}
