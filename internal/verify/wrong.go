package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/ui"
	"github.com/cudalessons/lessons/internal/wrong"
)

// WrongAnswer is one program of a wrong-answer set: a mistake a student
// would make, and the text its failure must show. With Right set it is a
// correct alternative instead, which must pass every check.
type WrongAnswer struct {
	Exercise string
	Right    bool
	// Name is the file's name in its folder; Path its path from the
	// course's root.
	Name, Path string
	Expect     string
	// Failed are the checks it failed, each as a student reads it
	// (name: want; got); a build that failed is one, "compiles".
	Failed []string
	// Matched is the failure that holds Expect; "" when none does.
	Matched string
	Err     error
	// Skipped says why it was not run (it needs more GPUs than there
	// are): neither a pass nor a failure, and said so in the table.
	Skipped string
	// Unseen is why no check can see the mistake (solutions/dayNNN/unseen/):
	// it is listed with why, never judged.
	Unseen string
	Took   time.Duration
	// Started counts the programs started to judge it.
	Started int
	judged  bool
}

// OK says whether the wrong answer failed, with its expected text (a
// correct alternative: passed).
func (w *WrongAnswer) OK() bool {
	if w.Skipped != "" || (w.Unseen != "" && w.Err == nil) {
		return true
	}
	if w.Right {
		return w.Err == nil && w.judged && len(w.Failed) == 0
	}
	return w.Err == nil && w.Matched != ""
}

// WrongReport is lessons verify --wrong's outcome: every wrong answer of
// every exercise, in course order, and the exercises that have none.
type WrongReport struct {
	Answers []*WrongAnswer
	// Order is the course's exercises; Counts their wrong answers.
	Order  []string
	Counts map[string]int
	Took   time.Duration
	// Programs counts the programs started (runs, hidden runs and runs
	// under a sanitizer).
	Programs int
	// Stopped: the run was stopped (interrupted, out of time) before
	// every answer was judged; those not judged are neither as expected
	// nor not.
	Stopped bool
}

// unjudged says w was not judged because the run stopped first.
func (r *WrongReport) unjudged(w *WrongAnswer) bool {
	return r.Stopped && !w.judged && w.Err == nil && w.Skipped == ""
}

// Bad counts the wrong answers that passed, failed without their
// expected text, or could not be judged.
func (r *WrongReport) Bad() int {
	n := 0
	for _, w := range r.Answers {
		if !w.OK() && !r.unjudged(w) {
			n++
		}
	}
	return n
}

// Err is the exit of a report already written: 1 when a wrong answer
// was not as expected.
func (r *WrongReport) Err() error {
	if r.Bad() > 0 {
		return &failure.Silent{}
	}
	return nil
}

// Wrong is lessons verify --wrong: every wrong answer of each exercise
// (package wrong: a whole program, or a patch applied to the solution)
// replaces the exercise's file and is built and judged as grade judges a
// student's (every check, hidden ones and hidden runs included); each
// must fail, and one of its failures must contain the text its first
// line expects. Every correct alternative must pass, and is run whole;
// a wrong answer's judging stops at the first failure that holds its
// expected text (exercise.Until: the sanitizers' runs last), so that a
// wrong answer refused by its public run costs one program. One that
// never shows its text is run whole, every failure listed. An answer that
// cannot be read (a patch that no longer applies) is one not as
// expected, with its error. Stopped half way (ctx), it returns what was
// judged (Stopped set) with ctx's error.
func Wrong(ctx context.Context, c *course.Course, opts RunOptions) (*WrongReport, error) {
	start := time.Now()
	root := filepath.Join(c.Root, ".lessons", "wrong")
	go opts.Toolkit.StatsLibrary(ctx)
	report := &WrongReport{Counts: map[string]int{}}
	type target struct {
		w   *WrongAnswer
		job *exercise.Job
	}
	var targets []target
	timed, untimed, unseen := 0, 0, 0
	for _, x := range c.Exercises {
		report.Order = append(report.Order, x.ID)
		spec, err := exercise.LoadSpec(c, x)
		if err != nil {
			return nil, err
		}
		answers, err := wrong.List(c, x)
		if err != nil {
			return nil, err
		}
		for _, a := range answers {
			w := &WrongAnswer{Exercise: x.ID, Name: a.Name, Path: a.Path, Right: a.Right}
			report.Answers = append(report.Answers, w)
			if !a.Right && !a.Unseen {
				report.Counts[x.ID]++
			}
			prog, err := wrong.Load(c, a)
			if err != nil {
				w.Err = err
				continue
			}
			if a.Unseen {
				// Read (so that one gone stale is said), never run.
				w.Unseen = prog.Unseen
				unseen++
				continue
			}
			w.Expect = prog.Expect
			// The program stands in for the student's file; the
			// exercise's other files are its own, as in a grade.
			files := exercise.Files(x, spec, c.Path(a.Path), filepath.Dir(c.Path(x.Student)))
			if prog.Source != nil {
				files[0].Data = prog.Source
			}
			if spec.Timed {
				timed++
			} else {
				untimed++
			}
			kind := "wrong"
			if a.Right {
				kind = "right"
			}
			job := &exercise.Job{ID: x.ID + " " + a.Name, Spec: spec, Files: files, Root: c.Root,
				Dir: filepath.Join(root, x.ID, kind, a.Stem())}
			targets = append(targets, target{w, job})
		}
	}
	// The correct alternatives first: each runs whole (every run, the
	// sanitizer's too) where a wrong answer stops at its expected
	// failure, and the longest work started first leaves the shortest
	// tail (heap-vs-pool's nine, queued last by the course's order, were
	// what a run cut at its limit had not reached, session 25).
	sort.SliceStable(targets, func(i, j int) bool { return targets[i].w.Right && !targets[j].w.Right })
	choice := grade.Choose(opts.PerGPU, opts.Queues, untimed, timed, "the timed")
	slots := choice.SlotsOn(opts.Devices, opts.Jobs, opts.PerGPU != 0)
	tk := opts.Toolkit
	var mu sync.Mutex
	var items []*grade.Item
	for _, t := range targets {
		w, job := t.w, t.job
		job.Env = choice.Env(job.Spec.Timed)
		var judge grade.Judge = exercise.RunAll
		if !w.Right && w.Expect != "" {
			judge = exercise.Until(w.holds)
		}
		items = append(items, grade.NewItem(grade.JobWork("wrong "+job.ID, tk, exercise.Plain{}, job, judge), func(o grade.Outcome) {
			mu.Lock()
			defer mu.Unlock()
			w.Took = o.Took
			if o.Ran != nil {
				w.Started = o.Ran.Started
				report.Programs += o.Ran.Started
			}
			var few *grade.TooFewGPUs
			if err := o.Err(); errors.As(err, &few) {
				w.Skipped = few.Error()
				return
			} else if err != nil {
				if ctx.Err() == nil { // stopped: not judged, not an error of w's
					w.Err = err
				}
				return
			}
			w.judge(o.Results())
		}))
	}
	if opts.Note != nil {
		opts.Note(fmt.Sprintf("Judging %s (wrong answers and correct alternatives) as grade would (a wrong answer until its expected failure), %d at a time on each GPU%s.",
			ui.Count(len(report.Answers)-unseen, "program"), choice.PerDevice, choice.Chosen()))
	}
	grade.Schedule(ctx, items, slots)
	if ctx.Err() != nil {
		// What was judged before the stop is the author's: the caller
		// writes it, then says why the rest was not.
		report.Took, report.Stopped = time.Since(start), true
		return report, ctx.Err()
	}
	report.Took = time.Since(start)
	return report, nil
}

// judge keeps w's failed checks and the first that holds its expected
// text.
func (w *WrongAnswer) judge(res []checker.Result) {
	w.judged = true
	for _, r := range res {
		if r.Pass {
			continue
		}
		text := failedText(r)
		w.Failed = append(w.Failed, text)
		if w.Matched == "" && w.holds(r) {
			w.Matched = text
		}
	}
}

// holds says whether r is a failure that holds w's expected text.
func (w *WrongAnswer) holds(r checker.Result) bool {
	return !w.Right && !r.Pass && w.Expect != "" && strings.Contains(strings.ToLower(failedText(r)), strings.ToLower(w.Expect))
}

// failedText is a failed check as a student reads it: name: want (got
// what).
func failedText(r checker.Result) string {
	text := r.Name
	if r.Want != "" && !strings.Contains(r.Name, r.Want) {
		text += ": " + r.Want
	}
	if r.Got != "" {
		text += " (got " + r.Got + ")"
	}
	return text
}

// Write prints one line per wrong answer, then the count per exercise
// and a summary line.
func (r *WrongReport) Write(out io.Writer) {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EXERCISE\tWRONG ANSWER\tRESULT")
	for _, w := range r.Answers {
		name := w.Name
		if w.Right {
			name += " (right)"
		}
		if w.Unseen != "" {
			name += " (unseen)"
		}
		res := w.result()
		if r.unjudged(w) {
			res = "- not judged: verify was stopped before its turn"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", w.Exercise, name, res)
	}
	tw.Flush()
	fmt.Fprintln(out)
	tw = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EXERCISE\tWRONG ANSWERS\tAS EXPECTED")
	ok := map[string]int{}
	skipped, unjudged, unseen := 0, 0, 0
	for _, w := range r.Answers {
		if w.Unseen != "" {
			unseen++
			continue
		}
		if r.unjudged(w) {
			unjudged++
			continue
		}
		if w.OK() && !w.Right && w.Skipped == "" {
			ok[w.Exercise]++
		}
		if w.Skipped != "" {
			skipped++
		}
	}
	for _, id := range r.Order {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", id, r.Counts[id], ok[id])
	}
	tw.Flush()
	none := []string{}
	for _, id := range r.Order {
		if r.Counts[id] == 0 {
			none = append(none, id)
		}
	}
	sort.Strings(none)
	rights := 0
	for _, w := range r.Answers {
		if w.Right {
			rights++
		}
	}
	fmt.Fprintf(out, "\n%s and %s judged in %s: %d as expected, %d not\n", ui.Count(len(r.Answers)-rights-unseen, "wrong answer"),
		ui.Count(rights, "correct alternative"), r.Took.Round(10*time.Millisecond), len(r.Answers)-r.Bad()-skipped-unjudged-unseen, r.Bad())
	if r.Programs > 0 {
		fmt.Fprintf(out, "%s started (a wrong answer stops at its first failure that holds its expected text; a correct alternative runs whole)\n", ui.Count(r.Programs, "program"))
	}
	if unjudged > 0 {
		fmt.Fprintf(out, "stopped before %s %s judged (neither passed nor failed)\n", ui.Count(unjudged, "program"), map[bool]string{true: "was", false: "were"}[unjudged == 1])
	}
	if unseen > 0 {
		fmt.Fprintf(out, "%s listed, not judged (solutions/dayNNN/unseen/): no check can see them, each says why\n", ui.Count(unseen, "unseen mistake"))
	}
	if skipped > 0 {
		fmt.Fprintf(out, "%s not run here: they need more GPUs than this machine has (neither passed nor failed)\n", ui.Count(skipped, "program"))
	}
	if len(none) > 0 {
		fmt.Fprintf(out, "no wrong answers yet: %s (add them under solutions/dayNNN/wrong/<exercise-id>/)\n", strings.Join(none, ", "))
	}
}

// result is a wrong answer's line of the table.
func (w *WrongAnswer) result() string {
	switch {
	case w.Skipped != "":
		return "- skipped: " + w.Skipped
	case w.Unseen != "" && w.Err == nil:
		return "- not judged: no check can see it: " + w.Unseen
	case w.Err != nil:
		return "✗ not judged: " + strings.ReplaceAll(w.Err.Error(), "\n\t", ": ")
	case w.Right && len(w.Failed) > 0:
		return "✗ a correct alternative fails: " + strings.Join(w.Failed, "; ")
	case w.Right:
		return "✓ passes every check"
	case len(w.Failed) == 0:
		return fmt.Sprintf("✗ passes every check: the checks do not tell this mistake from a solution (it expects %q)", w.Expect)
	case w.Matched == "":
		return fmt.Sprintf("✗ fails, but no failure says %q; it failed: %s", w.Expect, strings.Join(w.Failed, "; "))
	default:
		return "✓ " + w.Matched
	}
}
