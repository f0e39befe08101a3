package grade

import "github.com/cudalessons/lessons/internal/suspect"

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
