package lesson

import "github.com/cudalessons/lessons/diag"

// Error is a problem in a document, at a line, with what to do about it
// (diag.Error, which callers outside the module can name too).
type Error = diag.Error

// Errors is a list of problems, reported together.
type Errors = diag.Errors

// AsErrors flattens err into the document errors it holds, if any.
func AsErrors(err error) Errors { return diag.AsErrors(err) }
