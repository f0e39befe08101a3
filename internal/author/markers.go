// Package author keeps a course's exercises from one source: solution
// files with solution regions, from which the students' files are
// generated, and the mutants of those regions that test the specs.
package author

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/cudalessons/lessons/internal/lesson"
)

// Region is one solution region of a source file: the lines between
// BEGIN SOLUTION and END SOLUTION, which the student's file replaces by
// the stub (the commented lines after STUB, uncommented).
type Region struct {
	// Begin and End are the lines (from 1) of the BEGIN and END markers.
	Begin, End int
	// Stub is the line of STUB, 0 when the region has none.
	Stub int
	// Indent is the BEGIN marker's indentation.
	Indent string
}

// SolutionLines are the region's lines that only the solution has, as
// 1-based line numbers of the source, STUB's section left out.
func (r Region) SolutionLines() (first, last int) {
	last = r.End - 1
	if r.Stub > 0 {
		last = r.Stub - 1
	}
	return r.Begin + 1, last
}

// Source is a solution file split into its lines and regions.
type Source struct {
	File string
	// Lines are the file's lines, each with its line ending.
	Lines   []string
	Regions []Region
}

// Extensions are the files markers are read in: C, C++ and CUDA sources
// and headers, and Python scripts (whose markers and stubs are # comments).
var Extensions = []string{".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".c", ".py"}

// comment is how a line comment starts in file: # in Python, // in the
// others.
func comment(file string) string {
	if strings.EqualFold(filepath.Ext(file), ".py") {
		return "#"
	}
	return "//"
}

// Marked reports whether a file is one markers are read in.
func Marked(file string) bool {
	return slices.Contains(Extensions, strings.ToLower(filepath.Ext(file)))
}

// markerRE is a marker alone on its line, as a C++, a C or a Python
// comment.
var markerRE = regexp.MustCompile(`^[ \t]*(?:(?://|#)[ \t]*(BEGIN SOLUTION|END SOLUTION|STUB)[ \t]*|/\*[ \t]*(BEGIN SOLUTION|END SOLUTION|STUB)[ \t]*\*/[ \t]*)\r?\n?$`)

// nearRE is a line that mentions a marker but is not one: a marker after
// code, in another case, or misspelt.
var nearRE = regexp.MustCompile(`(?i)\b(BEGIN[ \t_]*SOLUTIONS?|END[ \t_]*SOLUTIONS?)\b|^[ \t]*(//|/\*|#)[ \t]*STUB\b`)

// HasMarkers reports whether data has a BEGIN SOLUTION marker.
func HasMarkers(data []byte) bool {
	for _, l := range splitLines(data) {
		if m := markerRE.FindStringSubmatch(l); m != nil && m[1]+m[2] == "BEGIN SOLUTION" {
			return true
		}
	}
	return false
}

func splitLines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	s := string(data)
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Parse reads a solution file's regions. Every misplaced marker is an
// error with its line: BEGIN inside a region, END or STUB outside one, a
// region never ended, a marker after code on its line, a stub line that
// is not a // comment.
func Parse(file string, data []byte) (*Source, error) {
	src := &Source{File: file, Lines: splitLines(data)}
	var errs lesson.Errors
	bad := func(line int, fix, format string, args ...any) {
		errs = append(errs, &lesson.Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...), Fix: fix})
	}
	var open *Region
	cm := comment(file)
	for i, l := range src.Lines {
		n := i + 1
		m := markerRE.FindStringSubmatch(l)
		if m == nil {
			switch {
			case nearRE.MatchString(l):
				bad(n, "write a marker alone on its line, in capitals: // BEGIN SOLUTION, // STUB, // END SOLUTION", "line mentions a solution marker but is not one: %s", strings.TrimSpace(l))
			case open != nil && open.Stub > 0 && strings.TrimSpace(l) != "" && !strings.HasPrefix(strings.TrimLeft(l, " \t"), cm):
				bad(n, "comment out every line after "+cm+" STUB: the generator removes the first "+cm+" of each", "stub line is not a %s comment: %s", cm, strings.TrimSpace(l))
			}
			continue
		}
		switch kind := m[1] + m[2]; kind {
		case "BEGIN SOLUTION":
			if open != nil {
				bad(n, "end the region above with // END SOLUTION first", "BEGIN SOLUTION inside the region begun at line %d", open.Begin)
				continue
			}
			open = &Region{Begin: n, Indent: l[:len(l)-len(strings.TrimLeft(l, " \t"))]}
		case "STUB":
			switch {
			case open == nil:
				bad(n, "put // STUB between // BEGIN SOLUTION and // END SOLUTION", "STUB outside a solution region")
			case open.Stub > 0:
				bad(n, "give a region one // STUB", "second STUB in the region begun at line %d (first at line %d)", open.Begin, open.Stub)
			default:
				open.Stub = n
			}
		case "END SOLUTION":
			if open == nil {
				bad(n, "begin the region with // BEGIN SOLUTION, or remove this marker", "END SOLUTION without a BEGIN SOLUTION")
				continue
			}
			open.End = n
			src.Regions = append(src.Regions, *open)
			open = nil
		}
	}
	if open != nil {
		bad(open.Begin, "end the region with // END SOLUTION", "BEGIN SOLUTION is never ended")
	}
	return src, errs.Err()
}

// Student is the student's file: every region replaced by its stub, or
// by a TODO comment at the region's indentation when it has none.
func (s *Source) Student() []byte {
	var b bytes.Buffer
	next := 0
	for _, r := range s.Regions {
		for _, l := range s.Lines[next : r.Begin-1] {
			b.WriteString(l)
		}
		eol := lineEnding(s.Lines[r.Begin-1])
		if r.Stub == 0 {
			b.WriteString(r.Indent + comment(s.File) + " TODO: write this part" + eol)
		} else {
			for _, l := range s.Lines[r.Stub : r.End-1] {
				b.WriteString(uncomment(l, comment(s.File)))
			}
		}
		next = r.End
	}
	for _, l := range s.Lines[next:] {
		b.WriteString(l)
	}
	return b.Bytes()
}

// Solution is the file with its marker lines (and stubs) removed: the
// solution as a student would write it.
func (s *Source) Solution() []byte {
	var b bytes.Buffer
	next := 0
	for _, r := range s.Regions {
		first, last := r.SolutionLines()
		for _, l := range s.Lines[next : r.Begin-1] {
			b.WriteString(l)
		}
		for _, l := range s.Lines[first-1 : last] {
			b.WriteString(l)
		}
		next = r.End
	}
	for _, l := range s.Lines[next:] {
		b.WriteString(l)
	}
	return b.Bytes()
}

func lineEnding(l string) string {
	switch {
	case strings.HasSuffix(l, "\r\n"):
		return "\r\n"
	case strings.HasSuffix(l, "\n"):
		return "\n"
	}
	return ""
}

// uncomment removes a stub line's first comment mark cm (// or #) and
// one space after it, keeping its indentation.
func uncomment(l, cm string) string {
	body := strings.TrimLeft(l, " \t")
	indent := l[:len(l)-len(body)]
	if !strings.HasPrefix(body, cm) {
		return l
	}
	body = strings.TrimPrefix(body[len(cm):], " ")
	if strings.TrimSpace(body) == "" {
		return lineEnding(l)
	}
	return indent + body
}
