package author

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/wrong"
)

// Lint checks what can be checked of a loaded course without nvcc or a
// GPU: every lesson parses (an empty one does not), every exercise has a spec
// that parses (keys, statistics, regexes, bounds) and whose files exist,
// every solution's markers parse, every wrong answer says what it expects
// and every one kept as a patch still applies to its solution, and every
// student file is what its solution generates. Warnings include what the sources name around the
// statistics library (package suspect). It returns every problem found, each with its file
// and line, and the lessons' warnings apart.
// loadErr is what course.Load said of the course, reported with the rest.
func Lint(c *course.Course, loadErr error) (errs, warnings lesson.Errors) {
	rel := func(e *lesson.Error) *lesson.Error {
		if r, err := filepath.Rel(c.Root, e.File); err == nil && !strings.HasPrefix(r, "..") {
			e.File = filepath.ToSlash(r)
		}
		return e
	}
	add := func(err error) {
		if err == nil {
			return
		}
		es := lesson.AsErrors(err)
		if es == nil {
			es = lesson.Errors{{Msg: err.Error()}}
		}
		for _, e := range es {
			errs = append(errs, rel(e))
		}
	}
	add(loadErr)
	for _, e := range c.Lessons {
		if _, err := os.Stat(c.Path(e.File)); err != nil {
			continue // course.Load has said so
		}
		l, err := c.Parse(e)
		add(err)
		if l == nil {
			continue
		}
		warnings = append(warnings, l.Warnings...)
		warnings = append(warnings, checkRefs(c, e.File, l)...)
		warnings = append(warnings, portability(e.File, l)...)
		warnings = append(warnings, unkept(e.File, l)...)
	}
	warnings = append(warnings, sameSlugs(c)...)
	for _, x := range c.Exercises {
		spec, err := checker.LoadSpec(c.Path(x.Spec()))
		switch {
		case os.IsNotExist(err):
			errs = append(errs, &lesson.Error{File: x.Student, Line: 1, Msg: fmt.Sprintf("exercise %s has no spec %s", x.ID, x.Spec()), Fix: "write its checks in " + x.Spec()})
		case err != nil:
			add(err)
		}
		warnings = append(warnings, suspectWarnings(c, x, spec)...)
		if spec != nil {
			add(AddSecret(c, x, spec))
			dir := filepath.Dir(c.Path(x.Student))
			for _, f := range spec.Files {
				if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
					errs = append(errs, &lesson.Error{File: x.Spec(), Line: spec.FilesLine, Msg: fmt.Sprintf("file %q does not exist beside %s", f, x.Student), Fix: "create it, or fix its name (it is relative to the exercise's folder)"})
				}
			}
		}
		add(lintAnswers(c, x))
		if data, err := os.ReadFile(c.Path(x.Solution)); err == nil && Marked(x.Solution) {
			if _, err := Parse(c.Path(x.Solution), data); err != nil {
				add(err)
				continue
			}
		}
	}
	if len(errs) == 0 {
		stale, err := Stale(c)
		add(err)
		for _, s := range stale {
			file, _, _ := strings.Cut(s, " ")
			errs = append(errs, &lesson.Error{File: file, Line: 1, Msg: strings.TrimPrefix(s, file+" ")})
		}
	}
	return errs, warnings
}

// lintAnswers is what package wrong says of each wrong answer and
// alternative of x: a patch that no longer applies to the solution, a
// wrong answer that expects nothing.
func lintAnswers(c *course.Course, x *course.Exercise) error {
	answers, err := wrong.List(c, x)
	if err != nil {
		return err
	}
	var errs lesson.Errors
	for _, a := range answers {
		if _, err := wrong.Load(c, a); err != nil {
			if es := lesson.AsErrors(err); es != nil {
				errs = append(errs, es...)
			} else {
				errs = append(errs, &lesson.Error{File: a.Path, Msg: err.Error()})
			}
		}
	}
	return errs.Err()
}
