package ui

import (
	"io"
	"strings"
	"unicode/utf8"
)

// clean is the one terminal sanitiser: text a lesson, a notebook or its
// programs send to a terminal, made safe. Every escape sequence is
// dropped (CSI, OSC, DCS, SOS, PM, APC, and the short ones), but with
// keepSGR a CSI that only sets colours and styles (ESC [ 1;31 m) is
// kept: a program's colours are harmless, a window title, the clipboard
// (OSC 52), a cleared screen or a moved cursor are not. Every other
// control character but tab and newline (C0, DEL, the C1 set, NUL),
// the bidirectional embeddings, overrides and isolates, and bytes that
// are not UTF-8 become U+FFFD. A CR before a newline is dropped (a file
// saved on Windows); any other CR becomes a newline, so that a line can
// never be drawn over another.
//
// It returns the cleaned text and how many bytes at the end of s it left
// alone because they may begin a sequence or character that the next
// piece of a stream completes (0 when final: then they are dropped or
// replaced like the rest).
func clean(s string, keepSGR, final bool) (string, int) {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			n, complete := escLen(s[i:])
			if !complete {
				if !final {
					return b.String(), len(s) - i
				}
				return b.String(), 0 // an unfinished sequence is dropped
			}
			if keepSGR && isSGR(s[i:i+n]) {
				b.WriteString(s[i : i+n])
			}
			i += n
			continue
		case c == '\r':
			switch {
			case i+1 < len(s) && s[i+1] == '\n':
			case i+1 == len(s) && !final:
				return b.String(), 1
			default:
				b.WriteByte('\n')
			}
			i++
			continue
		case c == '\n' || c == '\t':
			b.WriteByte(c)
			i++
			continue
		case c < 0x20 || c == 0x7f:
			b.WriteRune('\uFFFD')
			i++
			continue
		case c < 0x80:
			b.WriteByte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			if !final && !utf8.FullRuneInString(s[i:]) {
				return b.String(), len(s) - i
			}
			b.WriteRune('\uFFFD')
			i++
			continue
		}
		if r >= 0x80 && r <= 0x9f || bidiControl(r) {
			r = '\uFFFD'
		}
		b.WriteRune(r)
		i += size
	}
	return b.String(), 0
}

// escLen is the length of the escape sequence s starts with (s[0] is
// ESC), and whether it is complete in s.
func escLen(s string) (int, bool) {
	if len(s) < 2 {
		return len(s), false
	}
	switch s[1] {
	case '[': // CSI: parameters, intermediates, a final byte
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1, true
			}
			if s[i] < 0x20 || s[i] > 0x3f && s[i] < 0x40 || s[i] > 0x7e {
				return i, true // broken: drop what came so far
			}
		}
		return len(s), false
	case ']', 'P', 'X', '^', '_': // OSC, DCS, SOS, PM, APC: up to BEL or ST
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 && s[1] == ']' {
				return i + 1, true
			}
			if s[i] == 0x1b {
				if i+1 >= len(s) {
					return len(s), false
				}
				if s[i+1] == '\\' {
					return i + 2, true
				}
			}
		}
		return len(s), false
	}
	// ESC, intermediates (0x20-0x2f), a final byte
	for i := 1; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x2f {
			return i + 1, true
		}
	}
	return len(s), false
}

// isSGR tells whether a CSI sequence only sets colours and styles.
func isSGR(seq string) bool {
	if len(seq) < 3 || seq[1] != '[' || seq[len(seq)-1] != 'm' {
		return false
	}
	for _, c := range seq[2 : len(seq)-1] {
		if (c < '0' || c > '9') && c != ';' && c != ':' {
			return false
		}
	}
	return true
}

// Safe is text a lesson or its programs send to a terminal, made safe
// (see clean) with its colours and styles kept: for what is drawn with
// colour on purpose (a rendered lesson, a program's coloured output).
// Printable, for text shown as it is, drops those too.
func Safe(s string) string {
	out, _ := clean(s, true, true)
	return out
}

// SafeWriter writes to w what a lesson, a notebook or its programs send
// to a terminal, made safe as Safe makes it, as it streams: a sequence
// or character cut between two writes is held until the next completes
// it (up to 64 KiB), and what is left at Close is dropped.
type SafeWriter struct {
	w    io.Writer
	held string
}

// NewSafeWriter makes a SafeWriter.
func NewSafeWriter(w io.Writer) *SafeWriter { return &SafeWriter{w: w} }

// Write cleans p and writes it; it reports all of p as written.
func (s *SafeWriter) Write(p []byte) (int, error) {
	in := s.held + string(p)
	out, held := clean(in, true, false)
	s.held = in[len(in)-held:]
	if len(s.held) > 64<<10 {
		s.held = "" // an escape sequence that never ends is not kept
	}
	if _, err := io.WriteString(s.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close writes what is held, cleaned as final.
func (s *SafeWriter) Close() error {
	out, _ := clean(s.held, true, true)
	s.held = ""
	_, err := io.WriteString(s.w, out)
	return err
}
