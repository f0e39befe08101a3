package grade

import (
	"testing"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/course/coursetest"
)

// A grade of some exercises records each at its place in the course, so
// the CSV's columns keep the course's order whatever was graded first.
func TestBookExercisesInCourseOrder(t *testing.T) {
	c, err := course.Load(coursetest.Tiny(t, []string{"pipe", "alloc", "scan"}, nil))
	if err != nil {
		t.Fatal(err)
	}
	scan, _ := c.Exercise("scan")
	pipe, _ := c.Exercise("pipe")
	_, xs, err := Tasks(c, t.TempDir(), nil, []*course.Exercise{scan, pipe})
	if err != nil {
		t.Fatal(err)
	}
	if len(xs) != 2 || xs[0].ID != "scan" || xs[0].Position != 2 || xs[1].ID != "pipe" || xs[1].Position != 0 {
		t.Errorf("book exercises = %+v; want scan at 2, pipe at 0", xs)
	}
}
