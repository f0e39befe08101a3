package lesson

import (
	"bytes"
	"fmt"
)

// Limits on what a lesson may be, checked before goldmark reads it: a
// course is someone else's repository, and goldmark's time grows faster
// than the input with nesting (a line of 97 KB of ">" took seconds, as
// did lists nested by indentation), so deep nesting is refused rather
// than parsed.
const (
	// MaxBytes is the size of a markdown lesson (the course's largest
	// is 12 KB).
	MaxBytes = 1 << 20
	// MaxIpynbBytes is the size of a notebook, whose outputs (images)
	// make it larger than its text.
	MaxIpynbBytes = 16 << 20
	// MaxNesting is how deep block quotes and lists may nest.
	MaxNesting = 16
)

// checkSize refuses a lesson larger than max.
func checkSize(file string, src []byte, max int) error {
	if len(src) <= max {
		return nil
	}
	return &Error{File: file, Line: 1, Msg: fmt.Sprintf("the lesson is %d bytes, over the limit of %d", len(src), max),
		Fix: "split it into lessons of their own"}
}

// tooDeep finds the first line of markdown src (counted from 1) whose
// block quotes and lists nest deeper than MaxNesting, outside fenced
// code, and its depth; 0 when there is none. A line's depth is its ">" and list
// markers ("-", "*", "+", "1." or "1)" before a space) at its start, plus
// one for each two columns of indentation before a list marker (a list
// nested by indentation).
func tooDeep(src []byte) (line, d int) {
	var fenceChar byte
	var fenceLen int
	for n := 0; len(src) > 0; n++ {
		l := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			l, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		if fenceChar != 0 {
			if isClosingFence(l, fenceChar, fenceLen) {
				fenceChar = 0
			}
			continue
		}
		// A backtick fence's info string holds no backtick (CommonMark):
		// such a line opens no fence, as goldmark reads it.
		if c, k := fenceOf(l); c != 0 && (c != '`' || bytes.Count(l, []byte{'`'}) == k) {
			fenceChar, fenceLen = c, k
			continue
		}
		if d := depth(l); d > MaxNesting {
			return n + 1, d
		}
	}
	return 0, 0
}

// nestingError is the error of a line nested d deep.
func nestingError(file string, line, d int, where string) *Error {
	return &Error{File: file, Line: line, Msg: fmt.Sprintf("block quotes and lists nest %d deep%s, over the limit of %d", d, where, MaxNesting),
		Fix: "nest them less deeply"}
}

// checkMarkdown refuses a markdown lesson over the limits.
func checkMarkdown(file string, src []byte) error {
	if err := checkSize(file, src, MaxBytes); err != nil {
		return err
	}
	if line, d := tooDeep(src); line > 0 {
		return nestingError(file, line, d, "")
	}
	return nil
}

// depth is how deep the block quotes and lists that line l opens or
// continues nest, as checkNesting counts them.
func depth(l []byte) int {
	d, col, i := 0, 0, 0
	indent := -1
scan:
	for i < len(l) {
		switch c := l[i]; {
		case c == ' ':
			col++
			i++
			continue
		case c == '\t':
			col += 4 - col%4
			i++
			continue
		case c == '>':
			d++
			i++
			col++
			continue
		}
		n := listMarker(l[i:])
		if n == 0 {
			break scan
		}
		if indent < 0 && d == 0 {
			// A list's first marker on the line: its indentation nests it
			// in the lists of the lines above.
			d += col / 2
		}
		indent = col
		d++
		i += n
		col += n
	}
	return d
}

// listMarker is the length of the list marker at the start of b with the
// space after it, or 0.
func listMarker(b []byte) int {
	if len(b) >= 2 && (b[0] == '-' || b[0] == '*' || b[0] == '+') && (b[1] == ' ' || b[1] == '\t') {
		return 2
	}
	k := 0
	for k < len(b) && k < 9 && b[k] >= '0' && b[k] <= '9' {
		k++
	}
	if k > 0 && k+1 < len(b) && (b[k] == '.' || b[k] == ')') && (b[k+1] == ' ' || b[k+1] == '\t') {
		return k + 2
	}
	return 0
}
