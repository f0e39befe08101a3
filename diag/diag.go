// Package diag is the positioned error of every reader of user input: a
// problem in a file, at a line, with what to do about it. It imports
// nothing of this module, so that callers outside it can name the errors
// that checker, the course and the lesson readers return.
package diag

import (
	"errors"
	"fmt"
	"strings"
)

// Error is a problem in a document, at a line, with what to do about it.
type Error struct {
	File string
	Line int
	// Col is the 1-based column, where one is known (JSON errors).
	Col int
	Msg string
	// Fix says what the author should do; it may be empty.
	Fix string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
			if e.Col > 0 {
				fmt.Fprintf(&b, ":%d", e.Col)
			}
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Fix != "" {
		b.WriteString("\n\t")
		b.WriteString(e.Fix)
	}
	return b.String()
}

// Errors is a list of problems, reported together.
type Errors []*Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Err returns es as an error, or nil when it is empty.
func (es Errors) Err() error {
	if len(es) == 0 {
		return nil
	}
	return es
}

// AsErrors flattens err into the document errors it holds, if any.
func AsErrors(err error) Errors {
	var es Errors
	if errors.As(err, &es) {
		return es
	}
	var e *Error
	if errors.As(err, &e) {
		return Errors{e}
	}
	return nil
}
