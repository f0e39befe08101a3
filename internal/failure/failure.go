// Package failure holds the typed errors that decide a command's exit
// status, so that any package can say what kind of failure it returns
// and the command layer maps each kind to its status in one place.
// Any other error is the command's ordinary failure (exit status 1).
package failure

import "fmt"

// Usage is a command that cannot run as asked: a bad flag or argument
// (exit status 2, with a pointer to the command's help).
type Usage struct{ Err error }

func (e *Usage) Error() string { return e.Err.Error() }
func (e *Usage) Unwrap() error { return e.Err }

// Usagef is a Usage error with a formatted message.
func Usagef(format string, args ...any) error { return &Usage{fmt.Errorf(format, args...)} }

// Tool is a failure of the machine or its tools, not of the file judged
// or the lesson run: the command cannot do its job here (exit status 2).
type Tool struct{ Err error }

func (e *Tool) Error() string { return e.Err.Error() }
func (e *Tool) Unwrap() error { return e.Err }

// Toolf is a Tool error with a formatted message.
func Toolf(format string, args ...any) error { return &Tool{fmt.Errorf(format, args...)} }

// Silent is a failure the command has already told, in its own words:
// exit status 1, or Code when above 0 (a program's own status, passed on).
type Silent struct{ Code int }

func (e *Silent) Error() string { return fmt.Sprintf("exit status %d", e.Status()) }

// Status is the exit status it gives.
func (e *Silent) Status() int { return max(e.Code, 1) }
