package grade

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/gradebook"
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
