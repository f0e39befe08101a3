package grade

import (
	"os"
	"path/filepath"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/suspect"
)

// Reference are the sources that say what exercise x needs: its solution
// and the other files the exercise gives. What they name is no finding.
func Reference(c *course.Course, x *course.Exercise, spec *checker.Spec) [][]byte {
	var out [][]byte
	if data, err := os.ReadFile(c.Path(x.Solution)); err == nil {
		out = append(out, data)
	}
	dir := filepath.Dir(c.Path(x.Student))
	for _, f := range spec.Files {
		if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f))); err == nil {
			out = append(out, data)
		}
	}
	return out
}

// Suspect says, one line a finding, what the task's files name that
// reaches around the statistics library and the reference does not: a
// finding for the instructor, not a failure.
func Suspect(t *Task, reference [][]byte) []string {
	if t.Source == nil || t.Problem != "" {
		return nil
	}
	var out []string
	add := func(name string, data []byte) {
		for _, f := range suspect.Unexplained(data, reference...) {
			out = append(out, name+": "+f.String()+" (the exercise's solution does not)")
		}
	}
	add(t.SourceName, t.Source)
	for _, f := range t.Files {
		add(f.Name, f.Data)
	}
	return out
}
