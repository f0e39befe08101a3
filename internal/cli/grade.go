package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/atomicfile"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/lms"
	hw "github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/ui"
)

type gradeOptions struct {
	io        *IOStreams
	g         *globals
	book      string
	regrade   bool
	jobs      int
	perGPU    int
	queues    int
	out       string
	csv, json string
	trace     string
	hidden    string // grade feedback --hidden
	lms       lmsFlags
	slurm     slurmFlags
}

func newGrade(ios *IOStreams, g *globals, runF func(*gradeOptions, string, []string) error) *cobra.Command {
	o := &gradeOptions{io: ios, g: g}
	cmd := &cobra.Command{
		Use:   "grade SUBMISSIONS [EXERCISE...]",
		Short: "(instructors) Grade a class into a gradebook",
		Long: `Grade a class: SUBMISSIONS holds one folder per student, each with that
student's exercise files named as in exercises/ (alice/block_pool.cu or
alice/day068/block_pool.cu). Every student is graded on every exercise (or
on those named) with the checks of lessons check: all of an exercise's
points when every check passes, none otherwise (or, when its checks have
points of their own, those of the checks passed). A missing file is a missing
submission. SUBMISSIONS may also be an LMS's download, a zip or a folder
(Canvas, Moodle, a folder per student): each file is matched to its
exercise by name and content, and what is not matched is listed; a
--roster CSV names the students (lessons grade unpack shows the result).

Grades go into an SQLite gradebook as they are made. A run that is stopped
(even killed) loses nothing finished, and run again it resumes: it skips
what was graded on an unchanged file and spec (--regrade grades it again).

Builds run on every core at a lower priority (a file handed in by several
students is built once); runs are queued per GPU,
several at once on each by default (up to 16), with 2 hardware queues for each
program, which start CUDA faster; an exercise whose spec says timed = true
(a check compares timings) has the GPU to itself and CUDA's 8 queues. The
first line says what was chosen; --per-gpu and --gpu-queues set it.
--trace writes when each build and run began and ended.

Student code is untrusted: each build and run happens in a scratch folder
holding only that student's file, with limits on time, CPU, memory,
processes, file size and output, no network, and (with Landlock, and as a
user of its own when the grader is root) no access to other students'
files or to the gradebook. Where cgroups can be made, each also gets a
cgroup of its own (2 cores, memory and processes counted with its
children), so that a runaway program cannot slow the rest of the class.`,
		Example: `  lessons grade submissions/                     grade everyone on every exercise
  lessons grade submissions/ async-pipeline      one exercise
  lessons grade submissions/ --regrade           grade again what is already graded
  lessons grade canvas.zip --roster roster.csv   a Canvas download, students named by the roster
  lessons grade export                           grades.csv and grades.json
  lessons grade export --canvas canvas.csv       Canvas's gradebook import (also --moodle, --gradescope)
  lessons grade feedback --out feedback/         one markdown and one HTML page per student`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("grade needs the folder of submissions: lessons grade SUBMISSIONS")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("per-gpu") && (o.perGPU < 1 || o.perGPU > exercise.MaxSlots) {
				return usagef("--per-gpu is 1 to %d, not %d", exercise.MaxSlots, o.perGPU)
			}
			if runF != nil {
				return runF(o, args[0], args[1:])
			}
			return gradeRun(o, args[0], args[1:])
		},
	}
	cmd.PersistentFlags().StringVar(&o.book, "gradebook", "gradebook.db", "the gradebook `FILE` (SQLite)")
	cmd.Flags().BoolVar(&o.regrade, "regrade", false, "grade again what was already graded on the same file and spec")
	cmd.Flags().IntVarP(&o.jobs, "jobs", "j", runtime.NumCPU(), "builds at once")
	cmd.Flags().IntVar(&o.perGPU, "per-gpu", 0, "runs at once on each GPU (default: chosen, up to 16; a timed exercise's run still has its GPU to itself)")
	cmd.Flags().IntVar(&o.queues, "gpu-queues", 0, gpuQueuesHelp)
	cmd.Flags().StringVar(&o.trace, "trace", "", "write when each build and run began and ended to `FILE` (JSON for ui.perfetto.dev or chrome://tracing)")

	export := &cobra.Command{
		Use:     "export",
		Short:   "Write the gradebook as CSV (a row per student, a column per exercise, a total) and JSON, or as an LMS imports it",
		Example: "  lessons grade export\n  lessons grade export --csv - | column -ts,\n  lessons grade export --canvas canvas.csv --moodle moodle.csv --gradescope gradescope/",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.lms.any() && !cmd.Flags().Changed("csv") {
				o.csv = "" // only what was asked for
			}
			if o.lms.any() && !cmd.Flags().Changed("json") {
				o.json = ""
			}
			return gradeExport(o)
		},
	}
	export.Flags().StringVar(&o.csv, "csv", "grades.csv", "where the CSV goes (- for stdout, \"\" for none)")
	export.Flags().StringVar(&o.json, "json", "grades.json", "where the JSON goes (- for stdout, \"\" for none)")
	feedback := &cobra.Command{
		Use:     "feedback",
		Short:   "Write each student's feedback: every exercise, every check, expected and seen, points",
		Example: "  lessons grade feedback --out feedback/",
		Args:    noArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return gradeFeedback(o) },
	}
	feedback.Flags().StringVar(&o.out, "out", "feedback", "the `FOLDER` for STUDENT.md and STUDENT.html")
	feedback.Flags().StringVar(&o.hidden, "hidden", "summary", "what students see of hidden checks: show (each), summary (how many passed) or none")
	cmd.AddCommand(export, feedback)
	addLMSFlags(cmd, export, feedback, o)
	addSlurm(cmd, o)
	return cmd
}

// openBook opens the gradebook; reading commands need it to exist.
func openBook(path string, mustExist bool) (*gradebook.Book, error) {
	if mustExist {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("no gradebook at %s: grade a class first (lessons grade SUBMISSIONS) or name it with --gradebook", path)
		}
	}
	return gradebook.Open(path)
}

func gradeRun(o *gradeOptions, dir string, only []string) error {
	subs, c, err := openSubmissions(o, dir)
	if err != nil {
		return err
	}
	defer subs.Close()
	dir = subs.Dir
	if o.slurm.on || o.slurm.given() != "" {
		return gradeSlurm(o, c, dir, only)
	}
	if err := hw.CheckQueues(o.queues); err != nil {
		return err
	}
	cl, err := grade.LoadClass(c, dir, o.book, only)
	if err != nil {
		return err
	}
	students, exercises, tasks, bookXs, bookPath := cl.Students, cl.Exercises, cl.Tasks, cl.BookExercises, cl.BookPath
	ctx, stop := interrupted()
	defer stop()
	l, err := grade.NewLocal(ctx, tasks, o.jobs, o.perGPU, o.queues)
	if err != nil {
		return err
	}
	defer l.Close()
	book, err := openBook(bookPath, false)
	if err != nil {
		return err
	}
	defer book.Close()
	if err := book.SetExercises(bookXs); err != nil {
		return err
	}
	if err := book.SetPeople(subs.People); err != nil {
		return err
	}
	choice, devices := l.Choice, l.Devices
	alone := ""
	switch {
	case len(l.Timed) > 0 && choice.PerDevice > 1:
		alone = fmt.Sprintf(" (timed, so alone on theirs: %s)", strings.Join(l.Timed, ", "))
	case len(l.Timed) == 0 && o.perGPU == 1:
		// One at a time keeps the GPU quiet for timing checks; none here.
		alone = " (no exercise here is timed: without --per-gpu several run at once)"
	}
	fmt.Fprintf(o.io.ErrOut, "Grading %s on %s: builds on %d cores, runs on %d GPU(s) (%s), %d at a time on each%s%s.\nSandbox: %s.\nDriver cross-check: %s.\n",
		ui.Count(len(students), "student"), ui.Count(len(exercises), "exercise"), l.Jobs, len(devices), strings.Join(devices, ","), choice.PerDevice, alone, chosen(choice), l.Sandbox.Report(), exercise.DriverCheckSummary())
	var trace *grade.Trace
	if o.trace != "" {
		trace = grade.NewTrace()
	}
	bar := newProgress(o.io, len(tasks))
	gopts := l.Options()
	gopts.Regrade, gopts.Done, gopts.Trace = o.regrade, bar.done, trace
	sum, err := grade.Grade(ctx, book, tasks, l.Toolchain, gopts)
	bar.finish()
	if trace != nil {
		if terr := writeTrace(o.trace, trace); terr != nil {
			fmt.Fprintf(o.io.ErrOut, "lessons: the trace: %v\n", terr)
		}
	}
	if err != nil && sum == nil {
		return err
	}
	if lerr := l.LibraryErr(); lerr != nil && ctx.Err() == nil {
		return lerr // every run failed for it: say why once
	}
	sheet, serr := book.Sheet()
	if serr == nil {
		sheet.WriteTable(o.io.Out, o.io.Width())
		if n := len(sheet.Marked()); n > 0 {
			fmt.Fprintf(o.io.Out, "\n%s marked for review (the review column of lessons grade export, and the feedback).\n", ui.Count(n, "grade"))
		}
	}
	fmt.Fprintf(o.io.Out, "\n%d graded in %s: %d passed, %d failed, %d missing, %d could not be graded; %d unchanged since the last run (skipped); %d builds.\nGradebook: %s (lessons grade export, lessons grade feedback)\n",
		sum.Passed+sum.Failed+sum.Missing+sum.Errors, sum.Took.Round(10*time.Millisecond), sum.Passed, sum.Failed, sum.Missing, sum.Errors, sum.Skipped, sum.Builds, o.book)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("stopped: what was graded is in %s; run the same command again to go on", o.book)
		}
		return err
	}
	if sum.Errors > 0 {
		return fmt.Errorf("%d could not be graded (see the table); run again to retry them", sum.Errors)
	}
	return nil
}

// gradeProgress draws done/total, rate and time left on a terminal, and a line
// per graded file elsewhere.
type gradeProgress struct {
	w     io.Writer
	tty   bool
	total int
	n     int
	start time.Time
}

func newProgress(ios *IOStreams, total int) *gradeProgress {
	return &gradeProgress{w: ios.ErrOut, tty: ios.IsStderrTTY(), total: total, start: time.Now()}
}

func (p *gradeProgress) done(a *gradebook.Attempt, skipped bool) {
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

func (p *gradeProgress) finish() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}

// openSheet reads a gradebook that must already exist.
func openSheet(path string) (*gradebook.Sheet, error) {
	book, err := openBook(path, true)
	if err != nil {
		return nil, err
	}
	defer book.Close()
	return book.Sheet()
}

func gradeExport(o *gradeOptions) error {
	s, err := openSheet(o.book)
	if err != nil {
		return err
	}
	if o.csv == "" && o.json == "" && !o.lms.any() {
		return usagef("nothing to write: give --csv or --json a file")
	}
	write := func(name string, f func(io.Writer) error) error {
		if name == "" {
			return nil
		}
		if name == "-" {
			return f(o.io.Out)
		}
		var buf bytes.Buffer
		if err := f(&buf); err != nil {
			return err
		}
		if err := writeAtomic(name, buf.Bytes()); err != nil {
			return err
		}
		fmt.Fprintf(o.io.ErrOut, "wrote %s\n", name)
		return nil
	}
	if err := write(o.csv, s.WriteCSV); err != nil {
		return err
	}
	if err := write(o.json, s.WriteJSON); err != nil {
		return err
	}
	return exportLMS(o, s, write)
}

func gradeFeedback(o *gradeOptions) error {
	if !slices.Contains(gradebook.HiddenModes, o.hidden) {
		return usagef("--hidden is show, summary or none, not %q", o.hidden)
	}
	s, err := openSheet(o.book)
	if err != nil {
		return err
	}
	s.Hidden = o.hidden
	if o.lms.names {
		people, err := lmsPeople(o)
		if err != nil {
			return err
		}
		n, err := lms.WriteFeedback(s, people, o.out, writeAtomic)
		if err == nil {
			fmt.Fprintf(o.io.Out, "wrote feedback for %d students in %s, named as their LMS attaches it\n", n, o.out)
		}
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	for _, st := range s.Students {
		if err := writeAtomic(filepath.Join(o.out, st+".md"), []byte(s.Feedback(st))); err != nil {
			return err
		}
		page, err := s.FeedbackHTML(st)
		if err != nil {
			return err
		}
		if err := writeAtomic(filepath.Join(o.out, st+".html"), page); err != nil {
			return err
		}
	}
	fmt.Fprintf(o.io.Out, "wrote feedback for %d students in %s (STUDENT.md and STUDENT.html)\n", len(s.Students), o.out)
	return nil
}

// writeTrace writes a grade run's trace whole, or not at all.
func writeTrace(name string, tr *grade.Trace) error {
	var buf bytes.Buffer
	if err := tr.WriteJSON(&buf); err != nil {
		return err
	}
	return writeAtomic(name, buf.Bytes())
}

// writeAtomic writes a file whole or not at all.
func writeAtomic(name string, data []byte) error { return atomicfile.Write(name, data, 0o644) }
