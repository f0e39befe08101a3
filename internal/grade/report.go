package grade

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/atomicfile"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/ui"
)

// Chosen says, for a start line, what was chosen without a flag and why.
func (c Choice) Chosen() string {
	if c.Why == "" {
		return ""
	}
	return " (chosen: " + c.Why + "; --per-gpu and --gpu-queues override)"
}

// Start is what a local grade of cl says before it starts: what runs
// where, how many at once and why, the sandbox and the driver's
// cross-check. perGPU is --per-gpu (0 when not given).
func (l *Local) Start(cl *Class, perGPU int) string {
	alone := ""
	switch {
	case len(l.Timed) > 0 && l.Choice.PerDevice > 1:
		alone = fmt.Sprintf(" (timed, so alone on theirs: %s)", strings.Join(l.Timed, ", "))
	case len(l.Timed) == 0 && perGPU == 1:
		// One at a time keeps the GPU quiet for timing checks; none here.
		alone = " (no exercise here is timed: without --per-gpu several run at once)"
	}
	return fmt.Sprintf("Grading %s on %s: builds on %d cores, runs on %d GPU(s) (%s), %d at a time on each%s%s.\nSandbox: %s.\nDriver cross-check: %s.\nOutside witness: %s.\n",
		ui.Count(len(cl.Students), "student"), ui.Count(len(cl.Exercises), "exercise"), l.Jobs, len(l.Devices), strings.Join(l.Devices, ","),
		l.Choice.PerDevice, alone, l.Choice.Chosen(), l.Sandbox.Report(), exercise.DriverCheckSummary(), l.witness)
}

// Line sums up a grade run, its gradebook named book.
func (s *Summary) Line(book string) string {
	return fmt.Sprintf("%d graded in %s: %d passed, %d failed, %d missing, %d could not be graded; %d unchanged since the last run (skipped); %d builds.\nGradebook: %s (lessons grade export, lessons grade feedback)\n",
		s.Passed+s.Failed+s.Missing+s.Errors, s.Took.Round(10*time.Millisecond), s.Passed, s.Failed, s.Missing, s.Errors, s.Skipped, s.Builds, book)
}

// Progress draws done/total, rate and time left on a terminal, and a
// line per graded file elsewhere: Done is Options.Done.
type Progress struct {
	w     io.Writer
	tty   bool
	total int
	n     int
	start time.Time
}

// NewProgress draws the progress of total files to w, a terminal or not.
func NewProgress(w io.Writer, tty bool, total int) *Progress {
	return &Progress{w: w, tty: tty, total: total, start: time.Now()}
}

// Done counts a file graded (or skipped, unchanged since the last run).
func (p *Progress) Done(a *gradebook.Attempt, skipped bool) {
	p.n++
	el := time.Since(p.start)
	rate := float64(p.n) / el.Seconds()
	left := time.Duration(float64(p.total-p.n) / max(rate, 1e-9) * float64(time.Second))
	if p.tty {
		fmt.Fprintf(p.w, "\r%s %d/%d  %.1f/s  %s left ", ui.Bar(p.n, p.total, 30), p.n, p.total, rate, left.Round(time.Second))
		return
	}
	what := a.Status
	if skipped {
		what = "unchanged, " + a.Status
	}
	fmt.Fprintf(p.w, "[%d/%d] %s %s: %s %d/%d\n", p.n, p.total, a.Student, a.Exercise, what, a.Points, a.MaxPoints)
}

// Finish ends the bar's line on a terminal.
func (p *Progress) Finish() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}

// WriteFile writes the trace to the file name, whole or not at all.
func (tr *Trace) WriteFile(name string) error {
	var buf bytes.Buffer
	if err := tr.WriteJSON(&buf); err != nil {
		return err
	}
	return atomicfile.Write(name, buf.Bytes(), 0o644)
}
