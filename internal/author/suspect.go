package author

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/suspect"
)

// Reference are the sources that say what exercise x needs: its solution
// and the other files the exercise gives (spec, when known). What they
// name is not a finding in a submission.
func Reference(c *course.Course, x *course.Exercise, spec *checker.Spec) [][]byte {
	var out [][]byte
	if data, err := os.ReadFile(c.Path(x.Solution)); err == nil {
		out = append(out, data)
	}
	if spec == nil {
		return out
	}
	dir := filepath.Dir(c.Path(x.Student))
	for _, f := range spec.Files {
		if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f))); err == nil {
			out = append(out, data)
		}
	}
	return out
}

// ownKinds are what a solution may name without a warning: the driver
// API is what the VMM exercises teach, a solution may start a process of
// its own, and a whole program has a main (a header exercise's solution
// has none, so a student's header that brings one is marked).
var ownKinds = map[string]bool{"the driver API's allocations": true, "a process of its own": true, "a main of its own": true}

// suspectWarnings are lint's findings of exercise x: what its student
// file names around the statistics library that its solution does not
// (a grade would mark a submission for it), and what its solution names
// that lets every submission do the same unmarked.
func suspectWarnings(c *course.Course, x *course.Exercise, spec *checker.Spec) lesson.Errors {
	var out lesson.Errors
	if data, err := os.ReadFile(c.Path(x.Student)); err == nil {
		for _, f := range suspect.Unexplained(data, Reference(c, x, spec)...) {
			out = append(out, &lesson.Error{File: x.Student, Line: f.Line,
				Msg: fmt.Sprintf("names %s (%s), which its solution %s does not: %s", f.Text, f.Kind.Name, x.Solution, f.Kind.Why),
				Fix: "take it out of the student file, or regenerate it (lessons generate)"})
		}
	}
	if data, err := os.ReadFile(c.Path(x.Solution)); err == nil {
		for _, f := range suspect.Scan(data) {
			if ownKinds[f.Kind.Name] {
				continue
			}
			out = append(out, &lesson.Error{File: x.Solution, Line: f.Line,
				Msg: fmt.Sprintf("the solution names %s (%s): a submission that does is not marked for review: %s", f.Text, f.Kind.Name, f.Kind.Why),
				Fix: "do without it, if the exercise can"})
		}
	}
	return out
}
