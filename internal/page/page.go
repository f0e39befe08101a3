// Package page makes the course's pages notebooks: it gives the server
// of lessons serve what runs a page's cells (the lesson's workspace and
// its environment, as lessons run has them) and what checks its
// exercises (the student's verdict that lessons check gives).
package page

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/progress"
	"github.com/cudalessons/lessons/internal/rig"
	"github.com/cudalessons/lessons/internal/serve"
	"github.com/cudalessons/lessons/internal/workspace"
)

// Attach lets srv's pages of the course at root run cells (timeout each)
// and check exercises. It returns a note that says what the pages cannot
// do on this machine (no nvcc, no GPU), "" when they can do it all.
func Attach(ctx context.Context, srv *serve.Server, root string, timeout time.Duration) string {
	r, err := rig.Page(ctx)
	if err != nil {
		return fmt.Sprintf("the pages cannot run cells or check exercises: %v", err)
	}
	m, tk := r.Machine, r.Toolkit
	srv.SetNotebook(&serve.Notebook{
		Lesson:      func(page string) (*lesson.Lesson, string, error) { return lessonOf(root, page) },
		Env:         func(ws string) (notebook.Env, error) { return workspace.Env(m, m.Compiler(), ws) },
		Timeout:     timeout,
		CompileOnly: m.GPUErr != nil,
		Library:     tk.StatsLibrary,
	})
	srv.SetChecker(&Checker{Root: root, Machine: m, Toolkit: tk})
	if m.GPUErr != nil {
		return fmt.Sprintf("no GPU (%v): the pages compile cells only, and Check builds and reads the file and says where to run it", m.GPUErr)
	}
	return ""
}

// lessonOf is the lesson of a page ("day070-pools") and its workspace,
// the course read again so that a page sees the files as they are now.
func lessonOf(root, page string) (*lesson.Lesson, string, error) {
	c, err := course.Load(root)
	if err != nil {
		return nil, "", err
	}
	for _, e := range c.Lessons {
		if e.Name() == page {
			l, err := c.Parse(e)
			if err != nil {
				return nil, "", err
			}
			ws, err := workspace.For(c, l)
			return l, ws, err
		}
	}
	return nil, "", fmt.Errorf("%s is not a lesson of this course", page)
}

// Checker is the page's Check: the student's verdict of lessons check
// (exercise.Judge), given back as the page shows it.
type Checker struct {
	Root    string
	Machine *machine.Machine
	Toolkit *exercise.Toolkit
}

var _ serve.Checker = (*Checker)(nil)

// Exercises are the exercises of a page, with what the student passed.
func (p *Checker) Exercises(page string) ([]serve.Exercise, error) {
	c, err := course.Load(p.Root)
	if err != nil {
		return nil, err
	}
	prog, err := progress.Load(c)
	if err != nil {
		return nil, err
	}
	var out []serve.Exercise
	for _, e := range c.Lessons {
		if e.Name() != page {
			continue
		}
		for _, x := range e.Exercises {
			_, ok := prog.Passed[x.ID]
			out = append(out, serve.Exercise{ID: x.ID, Student: x.Student, Passed: ok, Hint: x.Hint()})
		}
	}
	return out, nil
}

// Files are the files each exercise is watched by, as lessons watch has them.
func (p *Checker) Files() map[string][]string {
	c, err := course.Load(p.Root)
	if err != nil {
		return nil
	}
	out := map[string][]string{}
	for _, x := range c.Exercises {
		out[x.ID] = exercise.WatchedFiles(c, x)
	}
	return out
}

// Check judges the student's file of exercise id and records a pass.
func (p *Checker) Check(ctx context.Context, id string) (*serve.Verdict, error) {
	c, err := course.Load(p.Root)
	if err != nil {
		return nil, err
	}
	x, err := c.Exercise(id)
	if err != nil {
		return nil, err
	}
	st, err := exercise.JudgeWith(ctx, c, x, c.Path(x.Student), p.Machine, p.Toolkit, exercise.JudgeOptions{Trace: true})
	if err != nil {
		return nil, err
	}
	v := Verdict(st)
	v.Timeline = serve.Pictures(st.Trace)
	// A failure is recorded too: it opens the exercise's third hint.
	_, err = st.Record(c)
	return v, err
}

// AttemptVerdict is an attempt of exercise x (a check graded in the
// class's sandbox) as the page shows it, alike Verdict: the hidden checks
// only counted (hidden of them), a skipped check marked skipped, not
// passed, and the hints of the failed checks, then the exercise's.
func AttemptVerdict(x *course.Exercise, a *gradebook.Attempt, hidden int) *serve.Verdict {
	v := &serve.Verdict{Exercise: x.ID, Passed: a.Status == gradebook.Passed, Score: a.Points, Points: a.MaxPoints, Hidden: hidden, Output: a.Output}
	if a.Status == gradebook.Error || a.Status == gradebook.Missing {
		v.Error = a.Reason
	}
	for _, ch := range a.Checks {
		if ch.Hidden {
			continue
		}
		cr := serve.CheckResult{Name: ch.Name, Pass: ch.Passed, Skipped: ch.Skipped(), Want: ch.Expected, Got: ch.Got, Points: ch.Points}
		if !ch.Passed {
			cr.Hint = ch.Hint
			if ch.Hint != "" {
				v.Hints = append(v.Hints, ch.Hint)
			}
		}
		v.Checks = append(v.Checks, cr)
	}
	if !v.Passed && x.Hint() != "" {
		v.Hints = append(v.Hints, x.Hint())
	}
	return v
}

// Verdict is st as the page shows it. As in lessons check, the page says
// only how many hidden checks there are.
func Verdict(st *exercise.Student) *serve.Verdict {
	v := &serve.Verdict{Exercise: st.Exercise.ID, Passed: st.Passed(), Score: st.Score(), Points: st.Spec.Points, Hidden: st.Spec.Hidden(),
		Hints: st.Hints, Output: strings.TrimRight(st.Log+st.Output, "\n")}
	for _, r := range st.Results {
		cr := serve.CheckResult{Name: r.Name, Pass: r.Pass, Skipped: r.Skipped, Want: r.Want, Got: r.Got}
		if r.Check != nil {
			cr.Points = r.Check.Points
			if !r.Pass {
				cr.Hint = r.Check.Hint
			}
		}
		v.Checks = append(v.Checks, cr)
	}
	return v
}
