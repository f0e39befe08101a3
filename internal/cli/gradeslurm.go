package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/grade/cluster"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/iostreams"
	hw "github.com/cudalessons/lessons/internal/machine"
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
	fl.StringVar(&f.opts.RunPartition, "partition", "", "with --slurm: the GPU `PARTITION` of the run tasks")
	fl.StringVar(&f.opts.BuildPartition, "build-partition", "", "with --slurm: the CPU `PARTITION` of the build tasks")
	fl.StringVar(&f.opts.Account, "account", "", "with --slurm: the Slurm account to charge")
	fl.StringVar(&f.opts.QOS, "qos", "", "with --slurm: the Slurm QOS")
	fl.StringVar(&f.opts.Time, "time", "", "with --slurm: each task's time limit (30:00, 2:00:00; default 1:00:00)")
	fl.IntVar(&f.opts.ItemsPerTask, "items-per-task", 0, "with --slurm: (student, exercise) runs per run task (default 20)")
	fl.IntVar(&f.opts.BuildsPerTask, "builds-per-task", 0, "with --slurm: distinct files per build task (default 40)")
	fl.IntVar(&f.opts.Throttle, "throttle", 0, "with --slurm: tasks of an array at once (the array's %N; default no limit)")
	fl.StringVar(&f.opts.Gres, "gres", "", "with --slurm: what a run task asks for (default gpu:1)")
	fl.StringArrayVar(&f.opts.Extra, "sbatch-arg", nil, "with --slurm: one more sbatch option for every task, e.g. --sbatch-arg=--constraint=h100 (repeatable)")
	fl.StringVar(&f.dir, "slurm-dir", "", "with --slurm: the job `FOLDER` on the shared filesystem (default: the gradebook's path + .slurm)")
	fl.DurationVar(&f.poll, "poll", 5*time.Second, "with --slurm: how often to look at the results and the queue")
	fl.StringVar(&f.exe, "lessons-binary", "", "with --slurm: the lessons `BINARY` as the nodes see it (default: this one)")

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

// slurmDir is the job folder: --slurm-dir, or beside the gradebook.
func slurmDir(f *slurmFlags, bookPath string) (string, error) {
	if f.dir != "" {
		return filepath.Abs(f.dir)
	}
	return bookPath + ".slurm", nil
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

func gradeSlurm(o *gradeOptions, c *course.Course, dir string, only []string) error {
	if !o.slurm.on {
		return usagef("--%s is an option of grade --slurm: add --slurm, or leave it out for a grade on this machine", o.slurm.given())
	}
	cl, err := grade.LoadClass(c, dir, o.book, only)
	if err != nil {
		return err
	}
	if err := hw.CheckQueues(o.queues); err != nil {
		return err
	}
	// The course's [grade.slurm], with the flags given on top.
	opts := cl.Course.Slurm.Override(o.slurm.opts, o.slurm.cmd.Flags().Changed)
	if err := opts.Check(); err != nil {
		return usagef("grade --slurm: %v (flags, or [grade.slurm] in course.toml)", err)
	}
	opts = opts.Defaults()
	// --per-gpu and --gpu-queues mean on each task's GPU what they mean
	// on a local one (0: chosen from what the task runs).
	opts.PerGPU, opts.Queues = o.perGPU, o.queues
	jobDir, err := slurmDir(&o.slurm, cl.BookPath)
	if err != nil {
		return err
	}
	note := func(s string) { fmt.Fprintln(o.io.ErrOut, s) }
	g := &cluster.Grade{Class: cl, Dir: jobDir, Exe: o.slurm.exe, Options: opts, Exec: slurmExec, Regrade: o.regrade, NoPreflight: o.slurm.noPreflight, Note: note}
	d, err := g.Driver()
	if err != nil {
		return err
	}
	if o.slurm.dryRun {
		book, err := gradebook.OpenIfThere(cl.BookPath)
		if err != nil {
			return err
		}
		defer book.Close()
		plan, err := g.DryRun(d, book)
		fmt.Fprint(o.io.Out, plan)
		return err
	}
	book, err := cl.OpenBook()
	if err != nil {
		return err
	}
	defer book.Close()
	if d, err = g.Submit(context.Background(), d, book); err != nil || d == nil {
		if err != nil {
			return err
		}
		return slurmFinish(o, book)
	}
	if o.slurm.detach {
		fmt.Fprintf(o.io.ErrOut, "Detached: results gather in %s; merge them with lessons grade collect --gradebook %s (--wait to wait for them).\n", d.Results(), o.book)
		return nil
	}
	return slurmWait(o, d, book)
}

// slurmWait follows the rounds until each is closed, merging as results
// come. Ctrl-C asks whether to cancel the tasks or leave them running.
func slurmWait(o *gradeOptions, d *cluster.Driver, book *gradebook.Book) error {
	ctx, stop := interrupted()
	defer stop()
	_, err := cluster.Wait(ctx, d, book, o.slurm.poll, func(s string) { fmt.Fprintln(o.io.ErrOut, s) })
	switch {
	case ctx.Err() != nil:
		return slurmInterrupted(o, d)
	case err != nil:
		return fmt.Errorf("%w; the tasks go on: lessons grade collect --gradebook %s merges what they grade", err, o.book)
	}
	return slurmFinish(o, book)
}

func slurmInterrupted(o *gradeOptions, d *cluster.Driver) error {
	leave := fmt.Errorf("stopped waiting; the tasks go on: lessons grade collect --gradebook %s merges what they grade", o.book)
	if !confirm(o.io, "\nCancel the Slurm jobs (scancel)?") {
		return leave
	}
	if err := d.Cancel(context.Background()); err != nil {
		return err
	}
	return fmt.Errorf("cancelled; what was graded is merged or waits in %s: run the same command again to go on", d.Dir)
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

// slurmFinish prints the gradebook as a local grade does.
func slurmFinish(o *gradeOptions, book *gradebook.Book) error {
	sheet, err := book.Sheet()
	if err != nil {
		return err
	}
	sheet.WriteTable(o.io.Out, o.io.Width())
	fmt.Fprintf(o.io.Out, "\nGradebook: %s (lessons grade export, lessons grade feedback)\n", o.book)
	if errs := sheet.Count(gradebook.Error); errs > 0 {
		return fmt.Errorf("%d could not be graded (see the table); run the same command again to retry them", errs)
	}
	return nil
}

func gradeCollect(o *gradeOptions, _ []string) error {
	bookPath, _ := filepath.Abs(o.book)
	jobDir, err := slurmDir(&o.slurm, bookPath)
	if err != nil {
		return err
	}
	d, ok, err := cluster.Reopen(jobDir, slurmExec)
	if err != nil {
		return err
	}
	if !ok {
		return usagef("nothing was submitted from %s: grade with lessons grade SUBMISSIONS --slurm first (or name the folder with --slurm-dir)", jobDir)
	}
	book, err := gradebook.OpenExisting(bookPath)
	if err != nil {
		return err
	}
	defer book.Close()
	if o.slurm.wait && len(d.Open()) > 0 {
		return slurmWait(o, d, book)
	}
	finished, err := cluster.Collect(context.Background(), d, book, func(s string) { fmt.Fprintln(o.io.ErrOut, s) })
	if err != nil || !finished {
		return err
	}
	return slurmFinish(o, book)
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
