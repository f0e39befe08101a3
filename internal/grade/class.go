package grade

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/sandbox"
)

// Class is a grade's class: its students, its exercises, and a task
// for each pair, every file read and every spec checked.
type Class struct {
	Course        *course.Course
	Submissions   string // the submissions, absolute
	Students      []string
	Exercises     []*course.Exercise
	Tasks         []*Task
	BookExercises []gradebook.Exercise
	BookPath      string // the gradebook, absolute
}

// runsRead are the folders every build and run may read (nil:
// sandbox.SystemRead); a test sets its own.
var runsRead []string

// LoadClass reads the class of a grade (locally, or on a cluster) from
// dir, a folder of submissions, for the gradebook book ("": none, as on
// a cluster's node) and the exercises only names (all when empty).
func LoadClass(c *course.Course, dir, book string, only []string) (*Class, error) {
	subs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(subs); err != nil || !st.IsDir() {
		return nil, failure.Usagef("%s is not a folder of submissions", dir)
	}
	// The sandbox lets every build and run read the system's folders
	// (sandbox.SystemRead): a course or a class there would hand each
	// student the solutions and secret specs (an #include of the
	// solution compiled it into the submission) and the classmates' files.
	for _, d := range []struct{ what, path string }{{"course", c.Root}, {"folder of submissions", subs}} {
		if r, err := sandbox.ReadByEveryRun(runsRead, d.path); err == nil && r != "" {
			return nil, failure.Usagef("the %s %s is inside %s, which every student's build and run may read: the solutions, the secret specs and the classmates' files would be open to all (a submission that #includes the solution passes as it); put it elsewhere (/srv, a home folder)", d.what, d.path, r)
		}
	}
	students, err := Students(subs)
	if err != nil {
		return nil, err
	}
	bookPath := ""
	if book != "" {
		bookPath, _ = filepath.Abs(book)
		if strings.HasPrefix(bookPath, subs+string(filepath.Separator)) {
			return nil, failure.Usagef("the gradebook %s is inside the submissions: students could reach it; put it elsewhere with --gradebook", book)
		}
	}
	exercises := c.Exercises
	if len(only) > 0 {
		exercises = nil
		for _, id := range only {
			x, err := c.Exercise(id)
			if err != nil {
				return nil, err
			}
			exercises = append(exercises, x)
		}
	}
	tasks, bookXs, err := Tasks(c, subs, students, exercises)
	if err != nil {
		return nil, err
	}
	return &Class{Course: c, Submissions: subs, Students: students, Exercises: exercises, Tasks: tasks, BookExercises: bookXs, BookPath: bookPath}, nil
}

// OpenBook opens the class's gradebook, made when there is none, with the
// class's exercises set: what a grade records into, here or through
// Slurm, held for this run alone (gradebook.OpenToGrade). Close it.
func (cl *Class) OpenBook() (*gradebook.Book, error) {
	book, err := gradebook.OpenToGrade(cl.BookPath)
	if err != nil {
		return nil, err
	}
	if err := book.SetExercises(cl.BookExercises); err != nil {
		book.Close()
		return nil, err
	}
	return book, nil
}

// Timed are the timed exercises among tasks, in order, and how many of
// the tasks are timed.
func Timed(tasks []*Task) (ids []string, n int) {
	for _, t := range tasks {
		if t.Spec.Timed {
			n++
			if !slices.Contains(ids, t.Exercise.ID) {
				ids = append(ids, t.Exercise.ID)
			}
		}
	}
	return ids, n
}
