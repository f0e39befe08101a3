package cli

import (
	"fmt"
	"io"
	"runtime"
	"slices"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/iostreams"
	"github.com/cudalessons/lessons/internal/lms"
	hw "github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/safefs"
	"github.com/cudalessons/lessons/internal/ui"
)

type gradeOptions struct {
	io        *iostreams.IOStreams
	g         *globals
	book      string
	regrade   bool
	jobs      int
	perGPU    int
	queues    int
	out       string
	csv, json string
	trace     string
	timeline  bool
	hidden    string // grade feedback --hidden
	lms       lmsFlags
	slurm     slurmFlags
}

// gradeRunE makes the RunE of grade's command name (grade itself is ""),
// which runs f, or the test's runF in its place.
type gradeRunE func(name string, f func(*gradeOptions, []string) error) func(*cobra.Command, []string) error

func newGrade(ios *iostreams.IOStreams, g *globals, runF func(o *gradeOptions, name string, args []string) error) *cobra.Command {
	o := &gradeOptions{io: ios, g: g}
	run := func(name string, f func(*gradeOptions, []string) error) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(o, name, args)
			}
			return f(o, args)
		}
	}
	cmd := &cobra.Command{
		Use:   "grade SUBMISSIONS [EXERCISE...]",
		Short: "(instructors) Grade a class into a gradebook",
		Long: `Grade a class: SUBMISSIONS holds one folder per student, each with that
student's exercise files named as in exercises/ (alice/block_pool.cu or
alice/day068/block_pool.cu; elsewhere in the folder, the one file of that
name). Every student is graded on every exercise (or
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
			return run("", gradeRun)(cmd, args)
		},
	}
	cmd.PersistentFlags().StringVar(&o.book, "gradebook", "gradebook.db", "the gradebook `FILE` (SQLite)")
	cmd.Flags().BoolVar(&o.regrade, "regrade", false, "grade again what was already graded on the same file and spec")
	cmd.Flags().IntVarP(&o.jobs, "jobs", "j", runtime.NumCPU(), "builds at once")
	cmd.Flags().IntVar(&o.perGPU, "per-gpu", 0, "runs at once on each GPU (default: chosen, up to 16; a timed exercise's run still has its GPU to itself)")
	cmd.Flags().IntVar(&o.queues, "gpu-queues", 0, gpuQueuesHelp)
	cmd.Flags().BoolVar(&o.timeline, "timeline", false, "keep each run's timeline (what it did with the allocator) in the gradebook: grade feedback draws it in each student's HTML")
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
			return run("export", gradeExport)(cmd, args)
		},
	}
	export.Flags().StringVar(&o.csv, "csv", "grades.csv", "where the CSV goes (- for stdout, \"\" for none)")
	export.Flags().StringVar(&o.json, "json", "grades.json", "where the JSON goes (- for stdout, \"\" for none)")
	feedback := &cobra.Command{
		Use:     "feedback",
		Short:   "Write each student's feedback: every exercise, every check, expected and seen, points",
		Example: "  lessons grade feedback --out feedback/",
		Args:    noArgs,
		RunE:    run("feedback", gradeFeedback),
	}
	feedback.Flags().StringVar(&o.out, "out", "feedback", "the `FOLDER` for STUDENT.md and STUDENT.html")
	feedback.Flags().StringVar(&o.hidden, "hidden", "summary", "what students see of hidden checks: show (each), summary (how many passed) or none")
	cmd.AddCommand(export, feedback)
	addLMSFlags(cmd, export, feedback, o, run)
	addSlurm(cmd, o, run)
	addDemo(cmd, o, run)
	return cmd
}

// openBook opens the gradebook; reading commands need it to exist.
func gradeRun(o *gradeOptions, args []string) error {
	dir, only := args[0], args[1:]
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
	ctx, stop := interrupted()
	defer stop()
	l, err := grade.NewLocal(ctx, cl.Tasks, o.jobs, o.perGPU, o.queues)
	if err != nil {
		return err
	}
	defer l.Close()
	l.KeepTraces(o.timeline)
	book, err := cl.OpenBook()
	if err != nil {
		return err
	}
	defer book.Close()
	if err := book.SetPeople(subs.People); err != nil {
		return err
	}
	fmt.Fprint(o.io.ErrOut, ui.Fit(l.Start(cl, o.perGPU), o.io.Width()))
	bar := grade.NewProgress(o.io.ErrOut, o.io.IsStderrTTY(), len(cl.Tasks))
	sum, err := l.Run(ctx, book, cl.Tasks, o.regrade, o.trace, bar.Done, func(s string) { fmt.Fprintln(o.io.ErrOut, s) })
	bar.Finish()
	if sum == nil {
		return err
	}
	if sheet, serr := book.Sheet(); serr == nil {
		sheet.WriteSummary(o.io.Out, o.io.Width())
	}
	fmt.Fprint(o.io.Out, "\n"+sum.Line(o.book))
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

func gradeExport(o *gradeOptions, _ []string) error {
	s, err := gradebook.ReadSheet(o.book)
	if err != nil {
		return err
	}
	if o.csv == "" && o.json == "" && !o.lms.any() {
		return usagef("nothing to write: give --csv or --json a file")
	}
	write := func(name string, f func(io.Writer) error) error {
		return safefs.WriteNamed(name, o.io.Out, o.io.ErrOut, f)
	}
	if err := write(o.csv, s.WriteCSV); err != nil {
		return err
	}
	if err := write(o.json, s.WriteJSON); err != nil {
		return err
	}
	return exportLMS(o, s, write)
}

func gradeFeedback(o *gradeOptions, _ []string) error {
	if !slices.Contains(gradebook.HiddenModes, o.hidden) {
		return usagef("--hidden is show, summary or none, not %q", o.hidden)
	}
	s, err := gradebook.ReadSheet(o.book)
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
	n, err := s.WriteFeedback(o.out)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.io.Out, "wrote feedback for %d students in %s (STUDENT.md and STUDENT.html)\n", n, o.out)
	return nil
}

// writeAtomic writes a file whole or not at all.
func writeAtomic(name string, data []byte) error { return safefs.WriteAtomic(name, data, 0o644) }
