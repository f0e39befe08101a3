package exercise

import (
	"bytes"
	"context"
	"path/filepath"
	"sync"
	"time"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/progress"
)

// Student is a student's verdict on an exercise, made once for every
// caller: lessons check and lessons watch print it, the page's Check
// sends it. Hidden checks and hidden runs wait for grade: Results are
// the public checks', and Spec.Hidden() counts the others.
type Student struct {
	Exercise *course.Exercise
	Spec     *checker.Spec // the whole spec
	Results  []checker.Result
	Log      string // the compiler's, when the build failed
	Output   string // the program's
	// Hints are the failed checks' hints, then the exercise's.
	Hints []string

	job *Job
}

// Passed is whether every public check passed; with none (every check
// hidden) nothing here says the exercise is done.
func (s *Student) Passed() bool { return checker.Passed(s.Results) && len(s.Results) > 0 }

// Score is the points of the public checks passed, as the spec scores.
func (s *Student) Score() int { return s.Spec.Score(s.Results) }

// NewStudent readies the check of src, a student's file for exercise x
// of course c, env added to the program's environment: its spec is read
// (an error names it), nothing is built yet. A file named outside the
// course reads the exercise's other files from beside it (NewJob).
func NewStudent(c *course.Course, x *course.Exercise, src string, env []string) (*Student, error) {
	job, err := NewJob(c, x, src)
	if err != nil {
		return nil, err
	}
	s := &Student{Exercise: x, Spec: job.Spec, job: job}
	job.Spec = s.Spec.Public()
	job.Env = env
	return s, nil
}

// Check builds and judges the file with tk as the user, in the exercise's
// workspace. A check stopped half way (ctx) is no verdict: it returns
// ctx's error.
func (s *Student) Check(ctx context.Context, tk *Toolkit) error {
	var log bytes.Buffer
	v, err := Check(ctx, tk, Plain{}, s.job, &log)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	s.Results, s.Log, s.Output = v.Results, log.String(), v.Output
	for _, r := range s.Results {
		if !r.Pass && r.Check != nil && r.Check.Hint != "" {
			s.Hints = append(s.Hints, r.Check.Hint)
		}
	}
	if !s.Passed() && s.Exercise.Hint() != "" {
		s.Hints = append(s.Hints, s.Exercise.Hint())
	}
	return nil
}

// progressMu lets one writer at a time read, change and write a course's
// progress.json within this process (the page's checks run at once).
var progressMu sync.Mutex

// Record writes the pass into the course's progress and returns it.
func (s *Student) Record(c *course.Course) (*progress.Progress, error) {
	progressMu.Lock()
	defer progressMu.Unlock()
	p, err := progress.Load(c)
	if err != nil {
		return nil, err
	}
	p.Passed[s.Exercise.ID] = time.Now().UTC()
	return p, p.Save(c)
}

// WatchedFiles are the files whose change checks exercise x again: the
// student's file, its spec, and the spec's other files beside it.
func WatchedFiles(c *course.Course, x *course.Exercise) []string {
	files := []string{c.Path(x.Student), c.Path(x.Spec())}
	if spec, err := LoadSpec(c, x); err == nil {
		for _, f := range spec.Files {
			files = append(files, filepath.Join(filepath.Dir(c.Path(x.Student)), f))
		}
	}
	return files
}
