package course

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A student names the exercise by its id, by the file they edit (from
// where they stand or from the course's root), or nearly by its id.
func TestExerciseByIDPathOrNearly(t *testing.T) {
	dir := goodCourse(t, good)
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(dir, "lessons"))
	for _, q := range []string{"pool", "exercises/pool.cu", "../exercises/pool.cu", "./exercises//pool.cu", filepath.Join(dir, "exercises", "pool.cu")} {
		if x, err := c.Exercise(q); err != nil || x.ID != "pool" {
			t.Errorf("Exercise(%q) = %v, %v; want pool", q, x, err)
		}
	}
	for q, want := range map[string]string{
		"pol":               `no exercise "pol": did you mean pool? (exercises are: pool)`,
		"Pool":              `no exercise "Pool": did you mean pool?`,
		"stream":            `no exercise "stream" (exercises are: pool)`,
		"solutions/pool.cu": `no exercise "solutions/pool.cu" (exercises are: pool)`,
	} {
		if _, err := c.Exercise(q); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Exercise(%q) = %v; want %q", q, err, want)
		}
	}
}

func TestExerciseOfACourseWithNone(t *testing.T) {
	c := &Course{Title: "Empty"}
	if _, err := c.Exercise(""); err == nil || err.Error() != "Empty has no exercises: course.toml names none" {
		t.Errorf("Exercise of none = %v", err)
	}
}

// --course may name the course.toml itself; a student file may be
// missing only when asked (lessons generate writes it).
func TestOpenManifestAndMissingStudents(t *testing.T) {
	dir := goodCourse(t, good)
	if c, err := Open(filepath.Join(dir, ManifestName)); err != nil || c.Root != dir {
		t.Fatalf("Open(course.toml) = %v, %v", c, err)
	}
	os.Remove(filepath.Join(dir, "exercises", "pool.cu"))
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "student file exercises/pool.cu does not exist") {
		t.Errorf("Open with a missing student file = %v", err)
	}
	if _, err := OpenWith(dir, Options{MissingStudents: true}); err != nil {
		t.Errorf("OpenWith(MissingStudents) = %v", err)
	}
	os.Remove(filepath.Join(dir, "solutions", "pool.cu"))
	if _, err := OpenWith(dir, Options{MissingStudents: true}); err == nil || !strings.Contains(err.Error(), "solution file solutions/pool.cu does not exist") {
		t.Errorf("OpenWith(MissingStudents) without the solution = %v", err)
	}
}

func FuzzDistance(f *testing.F) {
	f.Add("block-pol", "block-pool")
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 64 || len(b) > 64 {
			return
		}
		d := distance(a, b)
		if d != distance(b, a) || d > max(len(a), len(b)) || (d == 0) != (a == b) {
			t.Errorf("distance(%q, %q) = %d", a, b, d)
		}
	})
}

// lessons verify EXERCISE proves those exercises and the lessons that
// hold them, each with only those exercises; the course is left whole.
func TestOnly(t *testing.T) {
	a, b, x := &Exercise{ID: "a"}, &Exercise{ID: "b"}, &Exercise{ID: "c"}
	e1 := &Entry{Day: 1, Exercises: []*Exercise{a, b}}
	e2 := &Entry{Day: 2, Exercises: []*Exercise{x}}
	e3 := &Entry{Day: 3}
	c := &Course{Title: "T", Lessons: []*Entry{e1, e2, e3}, Exercises: []*Exercise{a, b, x}}
	got, err := c.Only("c", "b", "b")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Exercises) != 2 || got.Exercises[0] != b || got.Exercises[1] != x {
		t.Errorf("exercises %v, want b and c in the course's order", got.Exercises)
	}
	if len(got.Lessons) != 2 || got.Lessons[0].Day != 1 || len(got.Lessons[0].Exercises) != 1 || got.Lessons[0].Exercises[0] != b || got.Lessons[1].Day != 2 {
		t.Errorf("lessons %+v, want day 1 with b alone and day 2", got.Lessons)
	}
	if len(c.Lessons) != 3 || len(e1.Exercises) != 2 || len(c.Exercises) != 3 {
		t.Error("Only changed the course it narrowed")
	}
	if _, err := c.Only("d"); err == nil || !strings.Contains(err.Error(), "exercises are: a, b, c") {
		t.Errorf("an unknown exercise: %v", err)
	}
}
