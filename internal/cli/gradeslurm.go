package cli

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/grade/cluster"
	"github.com/cudalessons/lessons/internal/iostreams"
	"github.com/cudalessons/lessons/internal/slurm"
)

// slurmFlags are grade's options for a cluster.
type slurmFlags struct {
	on, dryRun, detach, noPreflight, wait bool
	dir, exe                              string
	opts                                  slurm.Options
	poll                                  time.Duration
	task                                  int // the worker's array index, when not from Slurm
	cmd                                   *cobra.Command
}

// slurmExec is the seam to Slurm's commands; tests replace it.
var slurmExec slurm.Exec = slurm.Command

func addSlurm(cmd *cobra.Command, o *gradeOptions, run gradeRunE) {
	f := &o.slurm
	f.cmd = cmd
	fl := cmd.Flags()
	fl.BoolVar(&f.on, "slurm", false, "grade as Slurm job arrays: builds on CPU nodes, runs on GPU nodes, merged here (see the README's \"Grading on a cluster\")")
	fl.BoolVar(&f.dryRun, "dry-run", false, "with --slurm: print the split and the job scripts, submit nothing")
	fl.BoolVar(&f.detach, "detach", false, "with --slurm: return once submitted; lessons grade collect merges later")
	fl.BoolVar(&f.noPreflight, "no-preflight", false, "with --slurm: skip the check that the nodes see the course, the submissions, the cache, nvcc and a GPU")
	addSlurmOptions(fl, &f.opts, &f.exe, "with --slurm: ", "each task's time limit (30:00, 2:00:00; default 1:00:00)")
	fl.IntVar(&f.opts.ItemsPerTask, "items-per-task", 0, "with --slurm: (student, exercise) runs per run task (default 20)")
	fl.IntVar(&f.opts.BuildsPerTask, "builds-per-task", 0, "with --slurm: distinct files per build task (default 40)")
	fl.IntVar(&f.opts.Throttle, "throttle", 0, "with --slurm: tasks of an array at once (the array's %N; default no limit)")
	fl.StringVar(&f.opts.Gres, "gres", "", "with --slurm: what a run task asks for (default gpu:1)")
	fl.StringVar(&f.dir, "slurm-dir", "", "with --slurm: the job `FOLDER` on the shared filesystem (default: the gradebook's path + .slurm)")
	fl.DurationVar(&f.poll, "poll", 5*time.Second, "with --slurm: how often to look at the results and the queue")

	collect := &cobra.Command{
		Use:   "collect",
		Short: "Merge the results of a grade --slurm into the gradebook; retry what was lost",
		Long: `collect merges into the gradebook what the Slurm tasks of lessons grade
--slurm (or --detach) have graded so far. Once a round's tasks have all
ended, the items a killed task left unfinished are submitted again, once;
those a retry also leaves are recorded as could not be graded, with how
the task ended. --wait waits until every task has ended.`,
		Example: "  lessons grade collect\n  lessons grade collect --wait",
		Args:    noArgs,
		RunE:    run("collect", gradeCollect),
	}
	collect.Flags().BoolVar(&f.wait, "wait", false, "wait for the tasks to end (and for the retries they need)")
	collect.Flags().StringVar(&f.dir, "slurm-dir", "", "the job `FOLDER` (default: the gradebook's path + .slurm)")
	collect.Flags().DurationVar(&f.poll, "poll", 5*time.Second, "how often to look, with --wait")

	worker := &cobra.Command{
		Use:    "worker build|run|preflight PLAN",
		Short:  "What a Slurm task of grade --slurm runs on its node",
		Hidden: true,
		Args:   cobra.ExactArgs(2),
		RunE:   run("worker", gradeWorker),
	}
	worker.Flags().IntVar(&f.task, "task", -1, "the array index (default $SLURM_ARRAY_TASK_ID)")
	cmd.AddCommand(collect, worker)
}

// addSlurmOptions adds the flags of Slurm's options, one vocabulary for
// grade --slurm and serve --class (course.toml's [grade.slurm] by the
// same names): with starts each line of help, timeHelp says --time.
func addSlurmOptions(fl *pflag.FlagSet, o *slurm.Options, exe *string, with, timeHelp string) {
	fl.StringVar(&o.RunPartition, "partition", "", with+"the GPU `PARTITION` of the run tasks")
	fl.StringVar(&o.BuildPartition, "build-partition", "", with+"the CPU `PARTITION` of the build tasks")
	fl.StringVar(&o.Account, "account", "", with+"the Slurm account to charge")
	fl.StringVar(&o.QOS, "qos", "", with+"the Slurm QOS")
	fl.StringVar(&o.Time, "time", "", with+timeHelp)
	fl.StringArrayVar(&o.Extra, "sbatch-arg", nil, with+"one more sbatch option for every job, e.g. --sbatch-arg=--constraint=h100 (repeatable)")
	fl.StringVar(exe, "lessons-binary", "", with+"the lessons `BINARY` as the nodes see it (default: this one)")
}

// given is a flag of --slurm given without it, or "".
func (f *slurmFlags) given() string {
	for _, name := range append([]string{"dry-run", "detach", "no-preflight", "slurm-dir", "poll", "lessons-binary"}, slurm.Flags()...) {
		if f.cmd != nil && f.cmd.Flags().Changed(name) {
			return name
		}
	}
	return ""
}

// slurmRequest is the grade's request to Slurm as the flags make it.
func slurmRequest(o *gradeOptions) cluster.Request {
	f := &o.slurm
	return cluster.Request{Book: o.book, Options: f.opts, Changed: f.cmd.Flags().Changed, PerGPU: o.perGPU, Queues: o.queues,
		Dir: f.dir, Exe: f.exe, Exec: slurmExec, Regrade: o.regrade, NoPreflight: f.noPreflight, DryRun: f.dryRun, Detach: f.detach, Poll: f.poll,
		Note: func(s string) { fmt.Fprintln(o.io.ErrOut, s) }, Confirm: func(q string) bool { return confirm(o.io, q) }}
}

func gradeSlurm(o *gradeOptions, c *course.Course, dir string, only []string) error {
	if !o.slurm.on {
		return usagef("--%s is an option of grade --slurm: add --slurm, or leave it out for a grade on this machine", o.slurm.given())
	}
	r := slurmRequest(o)
	r.Course, r.Submissions, r.Only = c, dir, only
	ctx, stop := interrupted()
	defer stop()
	out, err := cluster.Drive(ctx, r)
	return slurmEnd(o, out, err)
}

// slurmEnd prints how a grade through Slurm ended: the dry run's plan,
// where a detached grade's results gather, or the gradebook as a local
// grade prints it.
func slurmEnd(o *gradeOptions, out *cluster.Outcome, err error) error {
	if out != nil && out.Plan != "" {
		fmt.Fprint(o.io.Out, out.Plan)
	}
	if err != nil || out.Book == nil {
		if err == nil && out.Detached != "" {
			fmt.Fprintf(o.io.ErrOut, "Detached: results gather in %s; merge them with lessons grade collect --gradebook %s (--wait to wait for them).\n", out.Detached, o.book)
		}
		return err
	}
	defer out.Book.Close()
	sheet, err := out.Book.Sheet()
	if err != nil {
		return err
	}
	sheet.WriteTable(o.io.Out, o.io.Width())
	fmt.Fprintf(o.io.Out, "\nGradebook: %s (lessons grade export, lessons grade feedback)\n", o.book)
	return cluster.Finish(sheet)
}

// confirm asks a y/N question on a terminal; anything but y or yes, or
// stdin that is not a terminal, is no.
func confirm(ios *iostreams.IOStreams, question string) bool {
	f, ok := ios.In.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false
	}
	fmt.Fprint(ios.ErrOut, question+" [y/N] ")
	ans, _ := bufio.NewReader(ios.In).ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(ans))
	return a == "y" || a == "yes"
}

func gradeCollect(o *gradeOptions, _ []string) error {
	ctx, stop := interrupted()
	defer stop()
	out, err := cluster.CollectInto(ctx, slurmRequest(o), o.slurm.wait)
	return slurmEnd(o, out, err)
}

func gradeWorker(o *gradeOptions, args []string) error {
	stage, arg := args[0], args[1]
	idx, err := cluster.TaskIndex(o.slurm.task)
	if err != nil {
		return err
	}
	ctx, stop := interrupted()
	defer stop()
	host, _ := os.Hostname()
	w := &cluster.Worker{Stage: stage, Arg: arg, Index: idx, Course: o.g.courseDir, Host: host, Log: os.Stdout}
	return w.Run(ctx)
}
