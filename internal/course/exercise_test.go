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
