package exercise

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/progress"
	"github.com/cudalessons/lessons/internal/ui"
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
	// Trace is the run's trace (JudgeOptions.Trace), when its record
	// could be trusted: internal/timeline.Parse reads it.
	Trace []byte

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
// workspace, which it holds until the verdict is made (another check of
// the exercise in this course waits). A check stopped half way (ctx) is
// no verdict: it returns ctx's error.
func (s *Student) Check(ctx context.Context, tk *Toolkit) error {
	release, err := lockWorkspace(ctx, s.job)
	if err != nil {
		return err
	}
	defer release()
	var log bytes.Buffer
	v, err := Check(ctx, tk, Plain{}, s.job, &log)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	s.Results, s.Log, s.Output, s.Trace = v.Results, log.String(), v.Output, v.Trace
	s.hint()
	return nil
}

// hint gathers the hints of the verdict: the failed checks', then the
// exercise's.
func (s *Student) hint() {
	for _, r := range s.Results {
		if !r.Pass && r.Check != nil && r.Check.Hint != "" {
			s.Hints = append(s.Hints, r.Check.Hint)
		}
	}
	if !s.Passed() && s.Exercise.Hint() != "" {
		s.Hints = append(s.Hints, s.Exercise.Hint())
	}
}

// Remote is a verdict made elsewhere (the class server's, for lessons
// check --remote) as a Student, so that it prints as a check made here
// does: results are the public checks' (each tied to its check of spec,
// the whole spec, where it has one), output the program's.
func Remote(x *course.Exercise, spec *checker.Spec, results []checker.Result, output string) *Student {
	s := &Student{Exercise: x, Spec: spec, Results: results, Output: output}
	s.hint()
	return s
}

// progressMu lets one writer at a time read, change and write a course's
// progress.json within this process (the page's checks run at once).
var progressMu sync.Mutex

// Record writes the verdict into the course's progress and returns it:
// a pass, or a failure (which opens the exercise's third hint).
func (s *Student) Record(c *course.Course) (*progress.Progress, error) {
	progressMu.Lock()
	defer progressMu.Unlock()
	p, err := progress.Load(c)
	if err != nil {
		return nil, err
	}
	if s.Passed() {
		p.Passed[s.Exercise.ID] = time.Now().UTC()
	} else {
		p.Fail(s.Exercise)
	}
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

// Judge is a student's verdict on exercise x of course c for src, the
// file judged: the one function that lessons check, lessons watch and
// the page's Check call, each rendering what it gives. It runs the
// program: on m without a GPU, the error is the *Offline report of what
// could be done here (WithoutGPU).
func Judge(ctx context.Context, c *course.Course, x *course.Exercise, src string, m *machine.Machine, tk *Toolkit) (*Student, error) {
	return JudgeWith(ctx, c, x, src, m, tk, JudgeOptions{})
}

// JudgeOptions asks Judge for more than the verdict.
type JudgeOptions struct {
	// Trace asks the statistics library for a trace of the run
	// (Student.Trace).
	Trace bool
}

// JudgeWith is Judge with options.
func JudgeWith(ctx context.Context, c *course.Course, x *course.Exercise, src string, m *machine.Machine, tk *Toolkit, o JudgeOptions) (*Student, error) {
	if m.GPUErr != nil {
		return nil, WithoutGPU(ctx, c, x, src, m.Missing())
	}
	st, err := NewStudent(c, x, src, m.RunEnv())
	if err != nil {
		return nil, err
	}
	st.job.Trace = o.Trace
	return st, st.Check(ctx, tk)
}

// WriteText writes the verdict as lessons check and watch show it: the
// compiler's log, the program's output when verbose, each check with
// what was expected and seen, how many hidden checks wait for grade,
// the points so far and the hints of a file that does not pass yet.
// What the student's file and program wrote (the log, the output, what
// a check saw) is made safe for the terminal (ui.Safe: colours kept,
// other escape sequences dropped, a CR a new line) before it is fitted
// to the terminal's width.
func (s *Student) WriteText(w io.Writer, color, verbose bool) {
	var b strings.Builder
	s.writeText(&b, color, verbose)
	io.WriteString(w, ui.Safe(b.String()))
}

func (s *Student) writeText(out io.Writer, color, verbose bool) {
	io.WriteString(out, s.Log)
	if verbose && s.Output != "" {
		io.WriteString(out, s.Output)
		fmt.Fprintln(out)
	}
	for _, r := range s.Results {
		pts := "" // with partial credit, what each check is worth
		if r.Check != nil && r.Check.Points > 0 {
			pts = " (" + ui.Count(r.Check.Points, "point") + ")"
			if !r.Pass {
				pts = " (0 of " + ui.Count(r.Check.Points, "point") + ")"
			}
		}
		switch {
		case r.Skipped:
			fmt.Fprintf(out, "  %s %s (%s)%s\n", ui.Style(color, "33", "–"), r.Name, r.Got, pts)
		case r.Pass:
			fmt.Fprintf(out, "  %s %s%s\n", ui.Style(color, "32", "✓"), r.Name, pts)
		default:
			fmt.Fprintf(out, "  %s %s%s\n      expected: %s\n      got:      %s\n", ui.Style(color, "31", "✗"), r.Name, pts, r.Want, r.Got)
		}
	}
	if n := s.Spec.Hidden(); n > 0 {
		fmt.Fprintf(out, "\n%s also %s when the exercise is graded.\n", ui.Count(n, "hidden check"), map[bool]string{true: "runs", false: "run"}[n == 1])
	}
	if len(s.Results) == 0 {
		// Every check of the spec is hidden: nothing here says done.
		fmt.Fprintf(out, "No check of %s runs before grading: lessons check cannot say whether it is done.\n", s.Exercise.ID)
		return
	}
	if !s.Passed() {
		if s.Spec.Partial() {
			fmt.Fprintf(out, "\n%d of %d points so far.\n", s.Score(), s.Spec.Points)
		}
		if len(s.Hints) > 0 {
			fmt.Fprintf(out, "\nhint: %s\n", strings.Join(s.Hints, "\n      "))
		}
	}
}

// Source is the file a check of exercise x judges: file when it is not
// "" (check --file; the exercise's other files are then read from beside
// it, NewJob), else the student's file in course c. A file named that is
// not there is a *failure.Usage.
func Source(c *course.Course, x *course.Exercise, file string) (string, error) {
	if file == "" {
		return c.Path(x.Student), nil
	}
	src, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(src); err != nil {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			err = pe.Err // the path is said once
		}
		return "", failure.Usagef("check --file %s: %v", file, err)
	}
	return src, nil
}
