// Package study is a student's side of a course in the terminal: the
// verdict of lessons check as it is printed, the hints, the table of
// lessons and exercises, and the screens of lessons watch. The command
// layer only finds the course and the machine and hands them here.
package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/progress"
	"github.com/cudalessons/lessons/internal/rig"
	"github.com/cudalessons/lessons/internal/timeline"
	"github.com/cudalessons/lessons/internal/ui"
)

// Terminal is where a command's screens go and what they may use there.
type Terminal struct {
	Out, ErrOut      io.Writer
	TTY              bool // Out is a terminal: watch clears it between screens
	Color, TrueColor bool
	Width            int
}

// Checker checks exercises on a machine with its toolkit, or, on a
// machine without a GPU (Offline set), does what can be done without one.
type Checker struct {
	Machine *machine.Machine
	Toolkit *exercise.Toolkit
	// Offline, when set, is what the machine lacks: each Check builds the
	// file and reads it (exercise.CheckOffline) and judges nothing.
	Offline *machine.Missing
	// Timeline says what to draw of the run after the verdict.
	Timeline Timeline
	// Remote, when set, makes each Check elsewhere (lessons watch
	// --remote: on the class's server), whatever this machine has.
	Remote Remote
}

// Remote checks src against exercise x of course c somewhere else and
// prints the verdict to t as Check does: whether it passed, and an error
// only when no verdict came.
type Remote func(ctx context.Context, t Terminal, c *course.Course, x *course.Exercise, src string, verbose, save bool) (bool, error)

// Timeline is what check draws of a run (lessons check --timeline).
type Timeline struct {
	// Draw draws the run's timeline after the verdict.
	Draw bool
	// Out, when set, is where the run's trace is written as it came.
	Out string
	// Compare runs the exercise's solution too, and draws the two runs.
	Compare bool
}

// On says whether a trace is wanted at all.
func (t Timeline) On() bool { return t.Draw || t.Out != "" || t.Compare }

// NewChecker finds nvcc and a GPU for the command named cmd (check,
// watch), which its errors name. Without a GPU, check does what can be
// done without one for src, the file of exercise x (Offline: it builds,
// the TODOs left, where to run it), prints it to t, and returns its
// error; watch gets an offline Checker, which does the same on every
// save and keeps watching.
func NewChecker(ctx context.Context, t Terminal, cmd string, c *course.Course, x *course.Exercise, src string) (Checker, error) {
	r, err := rig.Student(ctx, cmd)
	if miss := (*machine.Missing)(nil); errors.As(err, &miss) && miss.NoGPU != nil {
		if cmd == "watch" {
			return Checker{Offline: miss}, nil
		}
		return Checker{}, Offline(ctx, t, c, x, src, miss)
	}
	if err != nil {
		return Checker{}, err
	}
	return Checker{Machine: r.Machine, Toolkit: r.Toolkit}, nil
}

// Check checks src against exercise x of course c and prints the verdict
// to t (the program's output too when verbose); a pass is saved in the
// course's progress when save is set, else said of src.
func (k Checker) Check(ctx context.Context, t Terminal, c *course.Course, x *course.Exercise, src string, verbose, save bool) (bool, error) {
	if k.Remote != nil {
		return k.Remote(ctx, t, c, x, src, verbose, save)
	}
	if k.Offline != nil {
		off, err := exercise.CheckOffline(ctx, c, x, src, k.Offline)
		if err != nil {
			return false, err
		}
		fmt.Fprint(t.Out, ui.Fit(off.Text(), t.Width))
		return false, nil
	}
	out := t.Out
	fmt.Fprint(out, ui.Fit(fmt.Sprintf("Checking %s (%s)\n\n", x.ID, strings.TrimPrefix(src, c.Root+string(filepath.Separator))), t.Width))
	if spec, err := exercise.LoadSpec(c, x); err == nil && k.Machine != nil && k.Machine.Info != nil {
		if have := len(machine.Devices(len(k.Machine.Info.Devices))); spec.GPUs > have {
			fmt.Fprintf(out, "%s needs %d GPUs that can reach each other's memory, and this machine gives %d: it was not run.\nCheck it on a machine with %d GPUs.\n",
				x.ID, spec.GPUs, have, spec.GPUs)
			return false, &failure.Silent{Code: failure.StatusCannot}
		}
	}
	st, err := exercise.JudgeWith(ctx, c, x, src, k.Machine, k.Toolkit, exercise.JudgeOptions{Trace: k.Timeline.On()})
	if err != nil {
		return false, err
	}
	WriteVerdict(t, st, verbose)
	switch {
	case k.Timeline.Compare:
		fmt.Fprintln(out)
		if err := k.compare(ctx, t, c, x, st.Trace); err != nil {
			return st.Passed(), err
		}
	case k.Timeline.On():
		fmt.Fprintln(out)
		WriteTimeline(out, t, st.Trace)
	}
	if k.Timeline.Out != "" {
		if err := os.WriteFile(k.Timeline.Out, st.Trace, 0o644); err != nil {
			return st.Passed(), fmt.Errorf("write the run's trace: %w", err)
		}
	}
	return Settle(t, c, st, src, save)
}

// WriteVerdict prints st to t as lessons check prints a verdict, fitted
// to the terminal.
func WriteVerdict(t Terminal, st *exercise.Student, verbose bool) {
	var verdict strings.Builder
	st.WriteText(&verdict, t.Color, verbose)
	fmt.Fprint(t.Out, ui.Fit(verdict.String(), t.Width))
}

// Settle does what a verdict st on src changes, and says it: with save,
// it is recorded in the course's progress (a failure too: it opens the
// exercise's third hint) and a pass said with the progress; without
// (check --file: another file than the student's), a pass is said of
// src. It returns whether st passed.
func Settle(t Terminal, c *course.Course, st *exercise.Student, src string, save bool) (bool, error) {
	x := st.Exercise
	if !save {
		if st.Passed() {
			fmt.Fprint(t.Out, ui.Fit(fmt.Sprintf("\n%s passes every check of %s.\n", strings.TrimPrefix(src, c.Root+string(filepath.Separator)), x.ID), t.Width))
		}
		return st.Passed(), nil
	}
	p, err := st.Record(c)
	if !st.Passed() || err != nil {
		return st.Passed(), err
	}
	fmt.Fprint(t.Out, ui.Fit(fmt.Sprintf("\n%s passed (%d points). %d of %d exercises passed.\n", x.ID, st.Spec.Points, len(p.Passed), len(c.Exercises)), t.Width))
	return true, nil
}

// Offline is check's answer on a machine without a GPU (miss says so):
// the file built and read, what a grade would mark, and where to run it.
// The exercise is not judged: a *failure.Silent of StatusCannot.
func Offline(ctx context.Context, t Terminal, c *course.Course, x *course.Exercise, src string, miss *machine.Missing) error {
	off, err := exercise.CheckOffline(ctx, c, x, src, miss)
	if err != nil {
		return err
	}
	fmt.Fprint(t.Out, ui.Fit(off.Text(), t.Width))
	return &failure.Silent{Code: failure.StatusCannot}
}

// Progress is the course's progress as it is now: a pass changes it. A
// file spoilt since it was first read counts as empty here, and a pass
// will not write over it.
func Progress(c *course.Course) *progress.Progress {
	if p, err := progress.Load(c); err == nil {
		return p
	}
	return &progress.Progress{Passed: map[string]time.Time{}}
}

// HintText is the hints of x shown so far, numbered, and what comes next:
// when waiting, the next comes only after a check of x has failed.
func HintText(x *course.Exercise, shown []string, more, waiting bool) string {
	var b strings.Builder
	for i, h := range shown {
		fmt.Fprintf(&b, "Hint %d of %d for %s:\n", i+1, len(x.Hints), x.ID)
		// The course's words, shown as they are (ui.Printable): a hint
		// with an escape sequence (OSC 52, the clipboard) reaches no
		// terminal through lessons hint or watch's h.
		for _, line := range strings.Split(strings.TrimSpace(ui.Printable(h)), "\n") {
			fmt.Fprintf(&b, "  %s\n", line)
		}
	}
	switch {
	case more && waiting:
		b.WriteString("\nThe third hint comes after a check has failed: run lessons check first.\n")
	case more:
		fmt.Fprintf(&b, "\nlessons hint %s again for the next.\n", x.ID)
	default:
		fmt.Fprintf(&b, "\nThat is every hint. %s\n", LessonPointer(x))
	}
	return b.String()
}

// LessonPointer says how to read x's lesson, "" when it has none.
func LessonPointer(x *course.Exercise) string {
	if x.Lesson == nil {
		return ""
	}
	return fmt.Sprintf("The lesson: lessons show %d.", x.Lesson.Day)
}

// Pick is the exercise a student's command works on: the one id names,
// or, when id is "", the first that p has not passed; ok is false when
// every exercise is passed.
func Pick(c *course.Course, p *progress.Progress, id string) (x *course.Exercise, ok bool, err error) {
	if id == "" {
		if id, ok = p.Next(c, ""); !ok {
			return nil, false, nil
		}
	}
	x, err = c.Exercise(id)
	return x, err == nil, err
}

// Hint reveals the next hint of x in p, saves it in c's progress, and
// gives the hints shown so far (or says that x has none).
func Hint(c *course.Course, p *progress.Progress, x *course.Exercise) (string, error) {
	shown, more := p.RevealHint(x)
	if len(shown) == 0 {
		return fmt.Sprintf("%s has no hints. %s\n", x.ID, LessonPointer(x)), nil
	}
	if err := p.Save(c); err != nil {
		return "", err
	}
	return HintText(x, shown, more, p.Waiting(x)), nil
}

// WriteTimeline draws a run's trace for the terminal t, or says why
// there is none.
func WriteTimeline(out io.Writer, t Terminal, trace []byte) {
	if len(trace) == 0 {
		fmt.Fprintln(out, "No timeline: the run sent no trace (it made no CUDA call the library follows, or its record could not be trusted).")
		return
	}
	tl, err := timeline.Parse(trace)
	if err != nil {
		fmt.Fprintf(out, "No timeline: %v.\n", err)
		return
	}
	width := t.Width
	if width <= 0 {
		width = 80
	}
	io.WriteString(out, timeline.Text(tl, timeline.TextOptions{Width: width, Color: t.Color}))
}

// compare runs the solution of exercise x with a trace and draws it
// beside mine, the student's run's trace.
func (k Checker) compare(ctx context.Context, t Terminal, c *course.Course, x *course.Exercise, mine []byte) error {
	if x.Solution == "" {
		fmt.Fprintf(t.Out, "No comparison: the course names no solution of %s.\n", x.ID)
		WriteTimeline(t.Out, t, mine)
		return nil
	}
	sol := c.Path(x.Solution)
	if _, err := os.Stat(sol); err != nil {
		fmt.Fprintf(t.Out, "No comparison: the solution of %s (%s) is not in this copy of the course.\n", x.ID, x.Solution)
		WriteTimeline(t.Out, t, mine)
		return nil
	}
	ref, err := exercise.JudgeWith(ctx, c, x, sol, k.Machine, k.Toolkit, exercise.JudgeOptions{Trace: true})
	if err != nil {
		return fmt.Errorf("run the solution of %s for --compare: %w", x.ID, err)
	}
	a, errA := timeline.Parse(mine)
	b, errB := timeline.Parse(ref.Trace)
	if len(mine) == 0 || len(ref.Trace) == 0 || errA != nil || errB != nil {
		fmt.Fprintln(t.Out, "No comparison: a run sent no trace it could be read from.")
		WriteTimeline(t.Out, t, mine)
		return nil
	}
	width := t.Width
	if width <= 0 {
		width = 80
	}
	io.WriteString(t.Out, timeline.Diff(a, b, [2]string{"your run", "the solution's run"}, timeline.TextOptions{Width: width, Color: t.Color}))
	return nil
}
