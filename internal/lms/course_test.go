package lms

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cudalessons/lessons/internal/course"
)

// Each exercise of this repository's course is told apart by content
// alone: its stub and its solution hold enough of its own identifiers,
// and none holds enough of another's, so a file handed in under any name
// reaches its exercise.
func TestThisCourseByContent(t *testing.T) {
	c, err := course.Load(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	ts, err := Targets(c)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range c.Exercises {
		if len(ts[i].Marks) < 3 {
			t.Errorf("%s has %d identifiers of its own: %q", x.ID, len(ts[i].Marks), ts[i].Marks)
		}
		for _, f := range []string{x.Student, x.Solution} {
			data, err := os.ReadFile(c.Path(f))
			if err != nil {
				t.Fatal(err)
			}
			cands := []cand{{path: "renamed.cu", rel: "renamed.cu", data: data}}
			kept, notes := assign("s", cands, ts)
			if len(kept) != 1 || kept[0].dest != ts[i].Path {
				t.Errorf("%s as renamed.cu went to %+v (notes %+v), want %s", f, kept, notes, ts[i].Path)
			}
		}
	}
}
