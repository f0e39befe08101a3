package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/grade/cluster"
	"github.com/cudalessons/lessons/internal/gradebook"
	hw "github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/slurm"
	"github.com/cudalessons/lessons/internal/ui"
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

func addSlurm(cmd *cobra.Command, o *gradeOptions) {
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
		RunE:    func(cmd *cobra.Command, args []string) error { return gradeCollect(o) },
	}
	collect.Flags().BoolVar(&f.wait, "wait", false, "wait for the tasks to end (and for the retries they need)")
	collect.Flags().StringVar(&f.dir, "slurm-dir", "", "the job `FOLDER` (default: the gradebook's path + .slurm)")
	collect.Flags().DurationVar(&f.poll, "poll", 5*time.Second, "how often to look, with --wait")

	worker := &cobra.Command{
		Use:    "worker build|run|preflight PLAN",
		Short:  "What a Slurm task of grade --slurm runs on its node",
		Hidden: true,
		Args:   cobra.ExactArgs(2),
		RunE:   func(cmd *cobra.Command, args []string) error { return gradeWorker(o, args[0], args[1]) },
	}
	worker.Flags().IntVar(&f.task, "task", -1, "the array index (default $SLURM_ARRAY_TASK_ID)")
	cmd.AddCommand(collect, worker)
}

// slurmOptions are the course's [grade.slurm] with the flags given on top.
func slurmOptions(f *slurmFlags, o slurm.Options) (slurm.Options, error) {
	o.Extra = slices.Clone(o.Extra)
	set := func(name string) bool { return f.cmd != nil && f.cmd.Flags().Changed(name) }
	if set("partition") {
		o.RunPartition = f.opts.RunPartition
	}
	if set("build-partition") {
		o.BuildPartition = f.opts.BuildPartition
	}
	if set("account") {
		o.Account = f.opts.Account
	}
	if set("qos") {
		o.QOS = f.opts.QOS
	}
	if set("time") {
		o.Time = f.opts.Time
	}
	if set("items-per-task") {
		o.ItemsPerTask = f.opts.ItemsPerTask
	}
	if set("builds-per-task") {
		o.BuildsPerTask = f.opts.BuildsPerTask
	}
	if set("throttle") {
		o.Throttle = f.opts.Throttle
	}
	if set("gres") {
		o.Gres = f.opts.Gres
	}
	if set("sbatch-arg") {
		o.Extra = append(o.Extra, f.opts.Extra...)
	}
	if err := o.Check(); err != nil {
		return o, usagef("grade --slurm: %v (flags, or [grade.slurm] in course.toml)", err)
	}
	return o.Defaults(), nil
}

func slurmDir(f *slurmFlags, bookPath string) (string, error) {
	if f.dir != "" {
		return filepath.Abs(f.dir)
	}
	return bookPath + ".slurm", nil
}

// given is a flag of --slurm given without it, or "".
func (f *slurmFlags) given() string {
	for _, name := range []string{"dry-run", "detach", "no-preflight", "partition", "build-partition", "account", "qos", "time",
		"items-per-task", "builds-per-task", "throttle", "gres", "sbatch-arg", "slurm-dir", "poll", "lessons-binary"} {
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
	opts, err := slurmOptions(&o.slurm, cl.Course.Slurm)
	if err != nil {
		return err
	}
	// --per-gpu and --gpu-queues mean on each task's GPU what they mean
	// on a local one (0: chosen from what the task runs).
	opts.PerGPU, opts.Queues = o.perGPU, o.queues
	jobDir, err := slurmDir(&o.slurm, cl.BookPath)
	if err != nil {
		return err
	}
	if strings.HasPrefix(jobDir, cl.Submissions+string(filepath.Separator)) {
		return usagef("the job folder %s is inside the submissions: put it elsewhere with --slurm-dir", jobDir)
	}
	exe := o.slurm.exe
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return err
		}
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return err
	}
	cache, err := cluster.CacheDir()
	if err != nil {
		return err
	}
	d, err := cluster.NewDriver(jobDir, slurmExec, &cluster.State{Course: cl.Course.Root, Submissions: cl.Submissions, Exe: exe, Cache: cache, Env: cluster.SandboxEnv(), Options: opts})
	if err != nil {
		return err
	}
	ctx := context.Background()

	var book *gradebook.Book
	if !o.slurm.dryRun {
		if err := os.MkdirAll(jobDir, 0o755); err != nil {
			return err
		}
		if book, err = openBook(cl.BookPath, false); err != nil {
			return err
		}
		defer book.Close()
		if err := book.SetExercises(cl.BookExercises); err != nil {
			return err
		}
		// What earlier rounds finished is merged first: a rerun resumes
		// from it, and never submits an item whose tasks still run.
		if len(d.Open()) > 0 {
			if _, err := d.Step(ctx, book); err != nil {
				return err
			}
		}
	} else if _, err := os.Stat(cl.BookPath); err == nil {
		// A dry run shows what a rerun would submit: only what the
		// gradebook has not graded on the same file and spec.
		if book, err = openBook(cl.BookPath, true); err != nil {
			return err
		}
		defer book.Close()
	}
	sub, err := cluster.Prepare(d, book, cl.Tasks, o.regrade)
	if err != nil {
		return err
	}
	items := sub.Items
	if o.slurm.dryRun {
		fmt.Fprint(o.io.Out, d.DryRun(items))
		return nil
	}
	skipped, recorded := 0, 0
	for _, st := range sub.Settled {
		if st.Skipped {
			skipped++
			continue
		}
		if err := book.Record(st.Attempt); err != nil {
			return err
		}
		recorded++
	}
	fmt.Fprintf(o.io.ErrOut, "Grading %s on %s through Slurm: %s to grade, %d unchanged since the last run, %d missing or not gradable",
		ui.Count(len(cl.Students), "student"), ui.Count(len(cl.Exercises), "exercise"), ui.Count(len(items), "item"), skipped, recorded)
	if sub.Waiting > 0 {
		fmt.Fprintf(o.io.ErrOut, ", %d still with the tasks of an earlier submission", sub.Waiting)
	}
	fmt.Fprintln(o.io.ErrOut, ".")
	if len(items) == 0 && len(d.Open()) == 0 {
		fmt.Fprintln(o.io.ErrOut, "Nothing to submit.")
		return slurmFinish(o, book, nil)
	}
	if len(items) > 0 {
		if !o.slurm.noPreflight {
			if err := cluster.Preflight(ctx, d, func(s string) { fmt.Fprintln(o.io.ErrOut, s) }); err != nil {
				return err
			}
		}
		r, err := d.Submit(ctx, items, false)
		if err != nil {
			return err
		}
		p, _ := cluster.ReadPlan(r.Plan)
		if r.BuildJob != "" {
			fmt.Fprintf(o.io.ErrOut, "Submitted job %s: %s (%s) on %s.\n", r.BuildJob, ui.Count(len(p.Builds), "build task"), ui.Count(len(cluster.Builds(items)), "distinct file"), cluster.PartitionName(opts.BuildPartition))
		}
		fmt.Fprintf(o.io.ErrOut, "Submitted job %s: %s (%s, up to %d each) on %s, after the builds.\n", r.RunJob, ui.Count(len(p.Runs), "run task"), ui.Count(len(items), "item"), opts.ItemsPerTask, cluster.PartitionName(opts.RunPartition))
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
	start := time.Now()
	last := ""
	pr, err := cluster.Follow(ctx, d, book, o.slurm.poll, func(pr *cluster.Progress) {
		for _, a := range pr.Merged {
			fmt.Fprintf(o.io.ErrOut, "%s %s: %s %d/%d\n", a.Student, a.Exercise, a.Status, a.Points, a.MaxPoints)
		}
		for _, b := range pr.BuildsFailed {
			fmt.Fprintf(o.io.ErrOut, "%s: its run tasks built those files themselves.\n", b)
		}
		for _, r := range pr.Submitted {
			p, _ := cluster.ReadPlan(r.Plan)
			fmt.Fprintf(o.io.ErrOut, "Retrying %s that a killed task left: job %s, %s.\n", ui.Count(len(p.Items()), "item"), r.RunJob, ui.Count(len(p.Runs), "run task"))
		}
		if line := pr.Line(time.Since(start)); !pr.Finished && line != last {
			fmt.Fprintln(o.io.ErrOut, line)
			last = line
		}
	})
	switch {
	case ctx.Err() != nil:
		return slurmInterrupted(o, d)
	case err != nil:
		return fmt.Errorf("%w; the tasks go on: lessons grade collect --gradebook %s merges what they grade", err, o.book)
	}
	return slurmFinish(o, book, pr)
}

func slurmInterrupted(o *gradeOptions, d *cluster.Driver) error {
	leave := fmt.Errorf("stopped waiting; the tasks go on: lessons grade collect --gradebook %s merges what they grade", o.book)
	f, ok := o.io.In.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return leave
	}
	fmt.Fprint(o.io.ErrOut, "\nCancel the Slurm jobs (scancel)? [y/N] ")
	ans, _ := bufio.NewReader(o.io.In).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(ans)); a != "y" && a != "yes" {
		return leave
	}
	if err := d.Cancel(context.Background()); err != nil {
		return err
	}
	return fmt.Errorf("cancelled; what was graded is merged or waits in %s: run the same command again to go on", d.Dir)
}

// slurmFinish prints the gradebook as a local grade does.
func slurmFinish(o *gradeOptions, book *gradebook.Book, pr *cluster.Progress) error {
	sheet, err := book.Sheet()
	if err != nil {
		return err
	}
	sheet.WriteTable(o.io.Out, o.io.Width())
	errs := sheet.Count(gradebook.Error)
	fmt.Fprintf(o.io.Out, "\nGradebook: %s (lessons grade export, lessons grade feedback)\n", o.book)
	if errs > 0 {
		return fmt.Errorf("%d could not be graded (see the table); run the same command again to retry them", errs)
	}
	return nil
}

func gradeCollect(o *gradeOptions) error {
	bookPath, _ := filepath.Abs(o.book)
	jobDir, err := slurmDir(&o.slurm, bookPath)
	if err != nil {
		return err
	}
	st, ok, err := cluster.Load(jobDir)
	if err != nil {
		return err
	}
	if !ok {
		return usagef("nothing was submitted from %s: grade with lessons grade SUBMISSIONS --slurm first (or name the folder with --slurm-dir)", jobDir)
	}
	book, err := openBook(bookPath, true)
	if err != nil {
		return err
	}
	defer book.Close()
	d := &cluster.Driver{Dir: jobDir, Cluster: slurm.Cluster{Exec: slurmExec}, State: st}
	if len(d.Open()) == 0 {
		fmt.Fprintln(o.io.ErrOut, "Every round is merged; nothing to collect.")
		return slurmFinish(o, book, nil)
	}
	if o.slurm.wait {
		return slurmWait(o, d, book)
	}
	pr, err := d.Step(context.Background(), book)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.io.ErrOut, "Merged %d.\n", len(pr.Merged))
	if pr.Finished {
		return slurmFinish(o, book, pr)
	}
	fmt.Fprintln(o.io.ErrOut, pr.Line(0))
	fmt.Fprintln(o.io.ErrOut, "Tasks are still going: collect again later, or with --wait.")
	return nil
}

func gradeWorker(o *gradeOptions, stage, arg string) error {
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
