package grade

import "github.com/cudalessons/lessons/internal/suspect"

// Suspect says, one line a finding, what the task's files name that
// reaches around the statistics library and the reference does not: a
// finding for the instructor, not a failure. known are the kinds the
// reference names (suspect.Known, once per exercise).
func Suspect(t *Task, known []*suspect.Kind) []string {
	if t.Source == nil || t.Problem != "" {
		return nil
	}
	var out []string
	add := func(name string, data []byte) {
		for _, f := range suspect.UnexplainedBy(data, known) {
			out = append(out, name+": "+f.String()+" (the exercise's solution does not)")
		}
	}
	add(t.SourceName, t.Source)
	for _, f := range t.Files {
		add(f.Name, f.Data)
	}
	return out
}
