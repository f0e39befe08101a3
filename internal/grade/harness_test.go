package grade

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
)

var mainRE = regexp.MustCompile(`(?m)^\s*(int|auto)\s+main\s*\(`)

// A spec's other file that holds main is the exercise's harness: it
// prints what the checks read (Day 76's "sums: 24 of 24 correct") and
// makes the calls the statistics count. A student who hands in their own
// copy beside their file (an LMS download keeps it, LoadFiles takes it)
// would be graded on a harness of their own, printing every line the
// checks want without the work. Every harness of this course's exercises
// is fixed, so a grade always takes the exercise's.
func TestCourseHarnessesAreFixed(t *testing.T) {
	root, _ := filepath.Abs("../..")
	c, err := course.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range c.Exercises {
		spec, err := checker.LoadSpec(c.Path(x.Spec()))
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Dir(c.Path(x.Student))
		for _, f := range spec.Files {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if mainRE.Match(data) && !spec.IsFixed(f) {
				t.Errorf("%s: %s holds main (the harness) and is not fixed: a student's own copy would be graded", x.ID, f)
			}
		}
	}
}

// The attack itself: trudy hands in Day 76's header untouched and a
// pool_resource.cu of her own; the grade must build the exercise's.
func TestForgedHarnessIsNotGraded(t *testing.T) {
	root, _ := filepath.Abs("../..")
	c, err := course.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	x, err := c.Exercise("pool-resource")
	if err != nil {
		t.Skip("no pool-resource in this course")
	}
	spec, err := checker.LoadSpec(c.Path(x.Spec()))
	if err != nil {
		t.Fatal(err)
	}
	subs := t.TempDir()
	dir := filepath.Join(subs, "trudy", "day076")
	os.MkdirAll(dir, 0o755)
	stub, _ := os.ReadFile(c.Path(x.Student))
	os.WriteFile(filepath.Join(dir, "pool_resource.h"), stub, 0o644)
	forged := "int main() { printf(\"sums: 24 of 24 correct\\n\"); }\n"
	os.WriteFile(filepath.Join(dir, "pool_resource.cu"), []byte(forged), 0o644)
	task := &Task{Student: "trudy", Exercise: x, Spec: spec}
	file := filepath.Join(dir, "pool_resource.h")
	if err := Load(task, subs, file); err != nil {
		t.Fatal(err)
	}
	if err := LoadFiles(task, subs, dir, filepath.Dir(c.Path(x.Student))); err != nil {
		t.Fatal(err)
	}
	for _, f := range task.Files {
		if string(f.Data) == forged {
			t.Errorf("the grade builds trudy's own %s", f.Name)
		}
	}
}
