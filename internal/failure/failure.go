// Package failure holds the typed errors that decide a command's exit
// status, so that any package can say what kind of failure it returns
// and the command layer maps each kind to its status in one place.
// Any other error is the command's ordinary failure (exit status 1).
package failure

import (
	"errors"
	"fmt"
)

// The command's exit statuses, one for each kind of failure.
const (
	// StatusFailed: the command ran and something was wrong (a bad
	// lesson, a failing check), or a Silent one told in its own words.
	StatusFailed = 1
	// StatusCannot: the command could not run as asked (a Usage error)
	// or here (a Tool error).
	StatusCannot = 2
)

// Status is the exit status err gives, the one place where errors become
// statuses: 0 for none, a Silent's own, StatusCannot for a Usage or Tool
// anywhere in err's chain, else StatusFailed.
func Status(err error) int {
	var silent *Silent
	var usage *Usage
	var tool *Tool
	switch {
	case err == nil:
		return 0
	case errors.As(err, &silent):
		return silent.Status()
	case errors.As(err, &usage), errors.As(err, &tool):
		return StatusCannot
	}
	return StatusFailed
}

// Usage is a command that cannot run as asked: a bad flag or argument
// (StatusCannot, with a pointer to the command's help).
type Usage struct{ Err error }

func (e *Usage) Error() string { return e.Err.Error() }
func (e *Usage) Unwrap() error { return e.Err }

// Usagef is a Usage error with a formatted message.
func Usagef(format string, args ...any) error { return &Usage{fmt.Errorf(format, args...)} }

// Tool is a failure of the machine or its tools, not of the file judged
// or the lesson run: the command cannot do its job here (StatusCannot).
type Tool struct{ Err error }

func (e *Tool) Error() string { return e.Err.Error() }
func (e *Tool) Unwrap() error { return e.Err }

// Toolf is a Tool error with a formatted message.
func Toolf(format string, args ...any) error { return &Tool{fmt.Errorf(format, args...)} }

// Silent is a failure the command has already told, in its own words:
// StatusFailed, or Code when above 0 (a program's own status, passed on).
type Silent struct{ Code int }

func (e *Silent) Error() string { return fmt.Sprintf("exit status %d", e.Status()) }

// Status is the exit status it gives.
func (e *Silent) Status() int { return max(e.Code, StatusFailed) }
