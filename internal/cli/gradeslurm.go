package cli

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/grade"
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
func slurmOptions(f *slurmFlags, d course.SlurmDefaults) (slurm.Options, error) {
	o := slurm.Options{BuildPartition: d.BuildPartition, RunPartition: d.Partition, Account: d.Account, QOS: d.QOS,
		Time: d.Time, ItemsPerTask: d.ItemsPerTask, BuildsPerTask: d.BuildsPerTask, Throttle: d.Throttle, Gres: d.Gres, Extra: d.SbatchArgs}
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

// sandboxEnv are the settings of the sandbox that the tasks keep.
func sandboxEnv() []string {
	var env []string
	for _, k := range []string{"LESSONS_SANDBOX_USERS", "LESSONS_SANDBOX_READ", "LESSONS_SANDBOX_CGROUPS", "LESSONS_GPU", "LESSONS_CACHE_MAX"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
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

func gradeSlurm(o *gradeOptions, dir string, only []string) error {
	if !o.slurm.on {
		return usagef("--%s is an option of grade --slurm: add --slurm, or leave it out for a grade on this machine", o.slurm.given())
	}
	cl, err := loadClass(o, dir, only)
	if err != nil {
		return err
	}
	if err := hw.CheckQueues(o.queues); err != nil {
		return err
	}
	opts, err := slurmOptions(&o.slurm, cl.course.Slurm)
	if err != nil {
		return err
	}
	// --per-gpu and --gpu-queues mean on each task's GPU what they mean
	// on a local one (0: chosen from what the task runs).
	opts.PerGPU, opts.Queues = o.perGPU, o.queues
	jobDir, err := slurmDir(&o.slurm, cl.bookPath)
	if err != nil {
		return err
	}
	if strings.HasPrefix(jobDir, cl.subs+string(filepath.Separator)) {
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
	cache, err := cacheDir()
	if err != nil {
		return err
	}
	d := &slurm.Driver{Dir: jobDir, Cluster: slurm.Cluster{Exec: slurmExec}}
	prev, had, err := slurm.Load(jobDir)
	if err != nil {
		return err
	}
	d.State = &slurm.State{Course: cl.course.Root, Submissions: cl.subs, Exe: exe, Cache: cache, Env: sandboxEnv(), Options: opts}
	if had {
		d.State.Rounds, d.State.Capability = prev.Rounds, prev.Capability
	}
	ctx := context.Background()

	var book *gradebook.Book
	if !o.slurm.dryRun {
		if err := os.MkdirAll(jobDir, 0o755); err != nil {
			return err
		}
		if book, err = openBook(cl.bookPath, false); err != nil {
			return err
		}
		defer book.Close()
		if err := book.SetExercises(cl.bookXs); err != nil {
			return err
		}
		// What earlier rounds finished is merged first: a rerun resumes
		// from it, and never submits an item whose tasks still run.
		if len(d.Open()) > 0 {
			if _, err := d.Step(ctx, book); err != nil {
				return err
			}
		}
	} else if _, err := os.Stat(cl.bookPath); err == nil {
		// A dry run shows what a rerun would submit: only what the
		// gradebook has not graded on the same file and spec.
		if book, err = openBook(cl.bookPath, true); err != nil {
			return err
		}
		defer book.Close()
	}
	running := map[string]bool{}
	for _, r := range d.Open() {
		p, err := slurm.ReadPlan(r.Plan)
		if err != nil {
			return err
		}
		for _, it := range p.Items() {
			running[it.Student+"\x00"+it.Exercise] = true
		}
	}

	// Items for the cluster; the rest (unchanged, missing, a bad file)
	// is settled here, by a local grade's resume rule.
	var mine []*grade.Task
	waiting := 0 // items whose tasks still run
	for _, t := range cl.tasks {
		if running[t.Student+"\x00"+t.Exercise.ID] {
			waiting++
			continue
		}
		mine = append(mine, t)
	}
	todo, settled := mine, []grade.Settled(nil)
	if book != nil {
		if todo, settled, err = grade.Plan(book, mine, o.regrade); err != nil {
			return err
		}
	} else {
		todo = nil
		for _, t := range mine {
			if t.Source != nil && t.Problem == "" {
				todo = append(todo, t)
			}
		}
	}
	var items []slurm.Item
	for _, t := range todo {
		items = append(items, slurm.Item{Student: t.Student, Exercise: t.Exercise.ID, SourceHash: t.SourceHash, SpecHash: t.SpecHash, MaxPoints: t.Spec.Points})
	}
	if o.slurm.dryRun {
		return slurmDryRun(o.io.Out, d, items)
	}
	skipped, recorded := 0, 0
	for _, st := range settled {
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
		ui.Count(len(cl.students), "student"), ui.Count(len(cl.exercises), "exercise"), ui.Count(len(items), "item"), skipped, recorded)
	if waiting > 0 {
		fmt.Fprintf(o.io.ErrOut, ", %d still with the tasks of an earlier submission", waiting)
	}
	fmt.Fprintln(o.io.ErrOut, ".")
	if len(items) == 0 && len(d.Open()) == 0 {
		fmt.Fprintln(o.io.ErrOut, "Nothing to submit.")
		return slurmFinish(o, book, nil)
	}
	if len(items) > 0 {
		if !o.slurm.noPreflight {
			if err := slurmPreflight(ctx, o, d, opts); err != nil {
				return err
			}
		}
		r, err := d.Submit(ctx, items, false)
		if err != nil {
			return err
		}
		p, _ := slurm.ReadPlan(r.Plan)
		if r.BuildJob != "" {
			fmt.Fprintf(o.io.ErrOut, "Submitted job %s: %s (%s) on %s.\n", r.BuildJob, ui.Count(len(p.Builds), "build task"), ui.Count(len(slurm.Builds(items)), "distinct file"), partitionName(opts.BuildPartition))
		}
		fmt.Fprintf(o.io.ErrOut, "Submitted job %s: %s (%s, up to %d each) on %s, after the builds.\n", r.RunJob, ui.Count(len(p.Runs), "run task"), ui.Count(len(items), "item"), opts.ItemsPerTask, partitionName(opts.RunPartition))
	}
	if o.slurm.detach {
		fmt.Fprintf(o.io.ErrOut, "Detached: results gather in %s; merge them with lessons grade collect --gradebook %s (--wait to wait for them).\n", d.Results(), o.book)
		return nil
	}
	return slurmWait(o, d, book)
}

func partitionName(p string) string {
	if p == "" {
		return "the default partition"
	}
	return "partition " + p
}

// cacheDir is the compile cache's folder, absolute: the nodes share it.
func cacheDir() (string, error) {
	c, err := buildcache.Default()
	if err != nil {
		return "", err
	}
	return filepath.Abs(c.Dir)
}

func slurmDryRun(w io.Writer, d *slurm.Driver, items []slurm.Item) error {
	if len(items) == 0 {
		fmt.Fprintln(w, "Nothing to submit: every item is graded on its current file and spec, or has no file.")
		return nil
	}
	if d.State.Capability == "" {
		// The preflight gives the run nodes' GPU, which the builds are
		// made for; shown as they will be once it has.
		d.State.Capability = "?"
	}
	r, p, scripts := d.Prepare(items, false)
	o := d.State.Options
	fmt.Fprintf(w, "# %s, %s\n", ui.Count(len(items), "item"), ui.Count(len(slurm.Builds(items)), "distinct file"))
	if len(p.Builds) > 0 {
		fmt.Fprintf(w, "# build array: %s of up to %d files\n", ui.Count(len(p.Builds), "task"), o.BuildsPerTask)
		for i, b := range p.Builds {
			fmt.Fprintf(w, "#   build %d: %s\n", i, buildList(b))
		}
	}
	fmt.Fprintf(w, "# run array: %s of up to %d items\n", ui.Count(len(p.Runs), "task"), o.ItemsPerTask)
	for i, run := range p.Runs {
		fmt.Fprintf(w, "#   run %d: %s\n", i, itemList(run))
	}
	fmt.Fprintf(w, "\n$ sbatch --parsable %s/build-%d.sh\n%s", d.Dir, r.N, scripts[slurm.StageBuild])
	fmt.Fprintf(w, "\n$ sbatch --parsable --dependency=afterany:BUILD_JOB %s/run-%d.sh\n%s", d.Dir, r.N, scripts[slurm.StageRun])
	return nil
}

func buildList(bs []slurm.Build) string {
	var s []string
	for _, b := range bs {
		s = append(s, b.Exercise+" of "+b.Student)
	}
	return clip(strings.Join(s, ", "), 200)
}

func itemList(its []slurm.Item) string {
	var s []string
	for _, it := range its {
		s = append(s, it.Student+" "+it.Exercise)
	}
	return clip(strings.Join(s, ", "), 200)
}

// slurmWait follows the rounds until each is closed, merging as results
// come. Ctrl-C asks whether to cancel the tasks or leave them running.
func slurmWait(o *gradeOptions, d *slurm.Driver, book *gradebook.Book) error {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	ctx := context.Background()
	start := time.Now()
	last := ""
	for {
		pr, err := d.Step(ctx, book)
		if err != nil {
			return fmt.Errorf("%w; the tasks go on: lessons grade collect --gradebook %s merges what they grade", err, o.book)
		}
		for _, a := range pr.Merged {
			fmt.Fprintf(o.io.ErrOut, "%s %s: %s %d/%d\n", a.Student, a.Exercise, a.Status, a.Points, a.MaxPoints)
		}
		for _, b := range pr.BuildsFailed {
			fmt.Fprintf(o.io.ErrOut, "%s: its run tasks built those files themselves.\n", b)
		}
		for _, r := range pr.Submitted {
			p, _ := slurm.ReadPlan(r.Plan)
			fmt.Fprintf(o.io.ErrOut, "Retrying %s that a killed task left: job %s, %s.\n", ui.Count(len(p.Items()), "item"), r.RunJob, ui.Count(len(p.Runs), "run task"))
		}
		if pr.Finished {
			return slurmFinish(o, book, pr)
		}
		line := progressLine(pr, time.Since(start))
		if line != last {
			fmt.Fprintln(o.io.ErrOut, line)
			last = line
		}
		select {
		case <-time.After(o.slurm.poll):
		case <-sig:
			return slurmInterrupted(o, d)
		}
	}
}

func progressLine(pr *slurm.Progress, el time.Duration) string {
	left := ""
	if pr.Done > 0 && pr.Done < pr.Items {
		rate := float64(pr.Done) / el.Seconds()
		left = fmt.Sprintf(", about %s left", (time.Duration(float64(pr.Items-pr.Done)/rate) * time.Second).Round(time.Second))
	}
	what := ""
	if pr.Retrying {
		what = " retried"
	}
	return fmt.Sprintf("[%d/%d%s] tasks: %d pending, %d running, %d failed%s", pr.Done, pr.Items, what, pr.Pending, pr.Running, pr.Failed, left)
}

func slurmInterrupted(o *gradeOptions, d *slurm.Driver) error {
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
func slurmFinish(o *gradeOptions, book *gradebook.Book, pr *slurm.Progress) error {
	sheet, err := book.Sheet()
	if err != nil {
		return err
	}
	printSheet(o.io.Out, sheet)
	errs := 0
	for _, st := range sheet.Students {
		for _, a := range sheet.Grades[st] {
			if a.Status == gradebook.Error {
				errs++
			}
		}
	}
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
	st, ok, err := slurm.Load(jobDir)
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
	d := &slurm.Driver{Dir: jobDir, Cluster: slurm.Cluster{Exec: slurmExec}, State: st}
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
	fmt.Fprintln(o.io.ErrOut, progressLine(pr, 0))
	fmt.Fprintln(o.io.ErrOut, "Tasks are still going: collect again later, or with --wait.")
	return nil
}

// slurmPreflight runs the worker's preflight on a node of each partition
// (sbatch --wait) before the arrays are submitted: hundreds of tasks that
// all fail on a missing path help nobody.
func slurmPreflight(ctx context.Context, o *gradeOptions, d *slurm.Driver, opts slurm.Options) error {
	if err := os.MkdirAll(filepath.Join(d.Dir, "logs"), 0o755); err != nil {
		return err
	}
	want, err := courseHash(d.State.Course)
	if err != nil {
		return err
	}
	// Both preflights are submitted at once and followed like the arrays.
	cl := slurm.Cluster{Exec: slurmExec}
	parts := map[string]string{slurm.StageBuild: opts.BuildPartition, slurm.StageRun: opts.RunPartition}
	jobs := map[string]string{}
	var ids []string
	for _, stage := range []string{slurm.StageBuild, slurm.StageRun} {
		job := slurm.Job{Name: "preflight-" + stage, GPU: stage == slurm.StageRun, Tasks: 1, Dir: d.Dir, Exe: d.State.Exe,
			Course: d.State.Course, Cache: d.State.Cache, Env: d.State.Env,
			Args: []string{"preflight", want + "|" + d.State.Submissions + "|" + stage, "--task=0"}}
		o2 := opts
		o2.Throttle, o2.Time = 0, "5:00"
		path := filepath.Join(d.Dir, "preflight-"+stage+".sh")
		if err := slurm.WriteAtomic(path, []byte(slurm.Script(job, o2))); err != nil {
			return err
		}
		id, err := cl.Submit(ctx, path)
		if err != nil {
			cl.Cancel(ctx, ids...)
			return toolMissing(fmt.Errorf("preflight: %w", err))
		}
		jobs[stage] = id
		ids = append(ids, id)
	}
	fmt.Fprintf(o.io.ErrOut, "Preflight: jobs %s on %s and %s...\n", strings.Join(ids, " and "), partitionName(parts[slurm.StageBuild]), partitionName(parts[slurm.StageRun]))
	said := time.Now()
	for {
		tasks, err := cl.Tasks(ctx, ids...)
		if err != nil {
			cl.Cancel(ctx, ids...)
			return err
		}
		ended := len(tasks) == len(ids)
		var waiting []string
		for _, t := range tasks {
			if !t.Ended() {
				ended = false
				waiting = append(waiting, fmt.Sprintf("job %s %s (%s)", t.Job, strings.ToLower(t.State), t.Reason))
			}
		}
		if ended {
			var bad []string
			for _, t := range tasks {
				if t.State == "COMPLETED" {
					continue
				}
				stage := slurm.StageBuild
				if t.Job == jobs[slurm.StageRun] {
					stage = slurm.StageRun
				}
				log, _ := os.ReadFile(filepath.Join(d.Dir, "logs", fmt.Sprintf("preflight-%s-%s_0.log", stage, t.Job)))
				why := strings.TrimSpace(strings.ReplaceAll(string(log), "lessons: ", ""))
				if why == "" {
					why = "its task ended " + strings.ToLower(t.State)
				}
				bad = append(bad, fmt.Sprintf("the %s nodes (%s): %s", stage, partitionName(parts[stage]), why))
			}
			if len(bad) > 0 {
				return toolMissing(fmt.Errorf("preflight failed on %s\n(fix it, or skip the preflight with --no-preflight)", strings.Join(bad, "\n")))
			}
			runLog := filepath.Join(d.Dir, "logs", fmt.Sprintf("preflight-%s-%s_0.log", slurm.StageRun, jobs[slurm.StageRun]))
			log, _ := os.ReadFile(runLog)
			for _, line := range strings.Split(string(log), "\n") {
				if c, ok := strings.CutPrefix(line, capabilityLine); ok {
					d.State.Capability, _, _ = strings.Cut(c, " ")
					fmt.Fprintf(o.io.ErrOut, "Preflight: the run nodes have what they need; their GPU: %s; builds are made for it.\n", c)
				}
			}
			for _, id := range ids {
				for _, stage := range []string{slurm.StageBuild, slurm.StageRun} {
					os.Remove(filepath.Join(d.Dir, "logs", fmt.Sprintf("preflight-%s-%s_0.log", stage, id)))
				}
			}
			return nil
		}
		if time.Since(said) > 30*time.Second {
			fmt.Fprintf(o.io.ErrOut, "Preflight: waiting for %s (Ctrl-C, then --no-preflight, to skip it)\n", strings.Join(waiting, ", "))
			said = time.Now()
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// capabilityLine starts the preflight's line that gives the run nodes'
// GPU, "compute capability: 9.0 (NVIDIA H100 80GB HBM3)".
const capabilityLine = "compute capability: "

// courseHash is a hash of course.toml: the nodes must see the same.
func courseHash(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, course.ManifestName))
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:8]), nil
}

// taskIndex is the worker's index in its array.
func taskIndex(f *slurmFlags) (int, error) {
	if f.task >= 0 {
		return f.task, nil
	}
	v := os.Getenv("SLURM_ARRAY_TASK_ID")
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, usagef("grade worker: no SLURM_ARRAY_TASK_ID (%q) and no --task: it runs inside a Slurm array", v)
	}
	return n, nil
}

func gradeWorker(o *gradeOptions, stage, arg string) error {
	idx, err := taskIndex(&o.slurm)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	host, _ := os.Hostname()
	switch stage {
	case "preflight":
		return workerPreflight(ctx, o, arg, host)
	case slurm.StageBuild, slurm.StageRun:
	default:
		return usagef("grade worker: stage %q is build, run or preflight", stage)
	}
	p, err := slurm.ReadPlan(arg)
	if err != nil {
		return err
	}
	var items []slurm.Item
	if stage == slurm.StageBuild {
		if idx >= len(p.Builds) {
			return fmt.Errorf("grade worker: build task %d of %d", idx, len(p.Builds))
		}
		for _, b := range p.Builds[idx] {
			items = append(items, slurm.Item{Student: b.Student, Exercise: b.Exercise, SourceHash: b.SourceHash})
		}
	} else {
		if idx >= len(p.Runs) {
			return fmt.Errorf("grade worker: run task %d of %d", idx, len(p.Runs))
		}
		// A task started again (requeued) skips what it had finished.
		for _, it := range p.Runs[idx] {
			_, done, err := slurm.ReadResult(p.Results, it)
			if err != nil {
				return err
			}
			if !done {
				items = append(items, it)
			}
		}
	}
	fmt.Printf("lessons grade worker: %s task %d on %s: %s\n", stage, idx, host, ui.Count(len(items), "item"))
	if len(items) == 0 {
		return nil
	}
	tasks, err := workerTasks(o, p, items)
	if err != nil {
		return err
	}
	var m *machine
	if stage == slurm.StageBuild {
		m, err = findMachine(ctx, "")
		if err != nil {
			return toolMissing(fmt.Errorf("a build task needs nvcc: %w", err))
		}
		// A CPU node builds for the run nodes' GPU, as a run node would.
		var dev gpu.Device
		if _, err := fmt.Sscanf(p.Capability, "%d.%d", &dev.Major, &dev.Minor); err != nil {
			return fmt.Errorf("grade worker: the plan names no GPU to build for (%q)", p.Capability)
		}
		dev.Name = "the run nodes' GPU"
		m.Info, m.GPUErr = &gpu.Info{Devices: []gpu.Device{dev}}, nil
	} else {
		if m, err = checkMachine(ctx, "grade worker"); err != nil {
			return err
		}
		if p.Capability != "" && m.Arch() != "sm_"+strings.ReplaceAll(p.Capability, ".", "") {
			fmt.Printf("lessons grade worker: this node's GPU is %s, the build tasks built for %s: building here\n", m.Arch(), p.Capability)
		}
		if _, err := m.toolkit().StatsLibrary(ctx); err != nil {
			return err
		}
	}
	sb, err := exercise.TempSandbox("lessons-task-")
	if err != nil {
		return err
	}
	defer sb.Close()
	if stage == slurm.StageBuild {
		return workerBuild(ctx, grade.Pipeline{Toolkit: m.toolkit(), Runner: sb}, tasks)
	}
	// --per-gpu and --gpu-queues, or their choice from what this task
	// runs, as a local grade makes it.
	timed := 0
	for _, t := range tasks {
		if t.Spec.Timed {
			timed++
		}
	}
	kept := ""
	if timed > 0 {
		kept = "the timed"
	}
	choice := grade.Choose(p.PerGPU, p.Queues, len(tasks)-timed, timed, kept)
	tc := grade.Pipeline{Toolkit: m.toolkit(), Runner: sb, Env: hw.QueuesEnv(choice.Queues), TimedEnv: hw.QueuesEnv(choice.TimedQueues)}
	return workerRun(ctx, tc, p, idx, items, tasks, host, choice.PerDevice)
}

// workerTasks are the grade tasks of items, read as a local grade reads
// them (the student's file now; a file changed since the submission is
// graded as it is, and its result says so by its hash).
func workerTasks(o *gradeOptions, p *slurm.Plan, items []slurm.Item) ([]*grade.Task, error) {
	var only []string
	for _, it := range items {
		if !slicesContains(only, it.Exercise) {
			only = append(only, it.Exercise)
		}
	}
	o.g.courseDir = p.Course
	o.book = filepath.Join(os.TempDir(), "unused.db")
	cl, err := loadClass(o, p.Submissions, only)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, it := range items {
		want[it.Student+"\x00"+it.Exercise] = true
	}
	var tasks []*grade.Task
	for _, t := range cl.tasks {
		if want[t.Student+"\x00"+t.Exercise.ID] {
			tasks = append(tasks, t)
		}
	}
	return tasks, nil
}

func slicesContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// workerBuild builds a share of the distinct files into the shared
// cache, on the task's cores. A file that does not compile is the
// student's business (the run task records it); a tool that fails fails
// the task, which the run tasks then make up for.
func workerBuild(ctx context.Context, tc grade.Toolchain, tasks []*grade.Task) error {
	jobs := taskCPUs()
	q := make(chan *grade.Task)
	var mu sync.Mutex
	var failed []string
	var wg sync.WaitGroup
	for slot := 0; slot < jobs; slot++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range q {
				b := tc.Build(ctx, t, slot)
				mu.Lock()
				fmt.Printf("%s %s: %s in %s\n", t.Student, t.Exercise.ID, buildWord(b), b.Took.Round(time.Millisecond))
				if b.Err != nil {
					failed = append(failed, fmt.Sprintf("%s %s: %v", t.Student, t.Exercise.ID, b.Err))
				}
				mu.Unlock()
			}
		}()
	}
	for _, t := range tasks {
		q <- t
	}
	close(q)
	wg.Wait()
	if len(failed) > 0 {
		return fmt.Errorf("%d builds failed (the run tasks build them again):\n%s", len(failed), strings.Join(failed, "\n"))
	}
	return ctx.Err()
}

// taskCPUs are the cores Slurm gave the task: its builds at once.
func taskCPUs() int {
	n, err := strconv.Atoi(os.Getenv("SLURM_CPUS_PER_TASK"))
	if err != nil || n < 1 {
		n = runtime.NumCPU()
	}
	return min(max(n, 1), 64)
}

func buildWord(b *grade.Built) string {
	switch {
	case b.Err != nil:
		return "the tool failed"
	case b.Failed != nil:
		return "does not compile"
	}
	return "built"
}

// workerRun grades a share of the items on this task's GPU, with the
// local grade's pipeline and scheduler; each attempt becomes a result
// file on the shared filesystem as it is made. The class's gradebook is
// written only by the submitting node.
func workerRun(ctx context.Context, tc grade.Toolchain, p *slurm.Plan, idx int, items []slurm.Item, tasks []*grade.Task, host string, perGPU int) error {
	byPair := map[string]slurm.Item{}
	for _, it := range items {
		byPair[it.Student+"\x00"+it.Exercise] = it
	}
	taskID := fmt.Sprintf("%s_%d", os.Getenv("SLURM_ARRAY_JOB_ID"), idx)
	start := time.Now()
	var mu sync.Mutex // the sink is called from any goroutine
	var werr error
	n := 0
	sink := func(a *gradebook.Attempt) {
		r := &slurm.Result{Item: byPair[a.Student+"\x00"+a.Exercise], Attempt: a, Task: taskID, Node: host}
		err := slurm.WriteResult(p.Results, r)
		mu.Lock()
		defer mu.Unlock()
		if err != nil && werr == nil {
			werr = err
		}
		n++
		fmt.Printf("%s %s: %s %d/%d\n", a.Student, a.Exercise, a.Status, a.Points, a.MaxPoints)
	}
	// Each item is built (from the shared cache, where the build tasks
	// put it) and run on a run slot: GradeOne, scheduled as a local
	// grade's runs are (per GPU, a timed exercise's alone).
	// Identical files (the untouched stub, handed in by many) share one
	// build folder in the sandbox: their items take turns, so that two
	// builds never write one folder at once.
	var keyMu sync.Mutex
	keyLocks := map[string]*sync.Mutex{}
	lockKey := func(key string) *sync.Mutex {
		keyMu.Lock()
		defer keyMu.Unlock()
		if keyLocks[key] == nil {
			keyLocks[key] = new(sync.Mutex)
		}
		return keyLocks[key]
	}
	var gitems []*grade.Item
	for _, t := range tasks {
		gitems = append(gitems, &grade.Item{
			Name: t.Student + " " + t.Exercise.ID, Timed: t.Spec.Timed,
			Build: func(context.Context, int) (bool, string) { return true, "" },
			Run: func(ctx context.Context, device string, slot int) time.Duration {
				l := lockKey(t.Key())
				l.Lock()
				a := grade.GradeOne(ctx, tc, t, device, slot)
				l.Unlock()
				if cancelledWith(ctx, a) {
					return 0 // stopped half way: the task is started again, or retried
				}
				sink(a)
				return time.Duration(a.RunMS) * time.Millisecond
			},
		})
	}
	grade.Schedule(ctx, gitems, grade.Slots{Jobs: 1, Devices: hw.Devices(1), PerDevice: perGPU})
	if werr != nil {
		return werr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	fmt.Printf("lessons grade worker: %d graded in %s on GPU %s\n", n, time.Since(start).Round(time.Millisecond), strings.Join(hw.Devices(1), ","))
	return nil
}

// cancelledWith is whether a's program was killed by the signal that
// cancels the task: Slurm signals every process of a task at once (scancel,
// a time limit, a preemption), so the program may die of it before this
// process hears of it, and its "killed by signal 15" is no verdict on
// the student's code. Such an attempt waits a moment for the task's own
// signal; it is kept only if none comes.
func cancelledWith(ctx context.Context, a *gradebook.Attempt) bool {
	if ctx.Err() != nil {
		return true
	}
	killed := false
	for _, c := range a.Checks {
		killed = killed || strings.Contains(c.Got, "killed by signal")
	}
	if !killed {
		return false
	}
	select {
	case <-ctx.Done():
		return true
	case <-time.After(2 * time.Second):
		return false
	}
}

// workerPreflight checks, on a compute node, what its tasks will need.
func workerPreflight(ctx context.Context, o *gradeOptions, arg, host string) error {
	parts := strings.SplitN(arg, "|", 3)
	if len(parts) != 3 {
		return usagef("grade worker preflight: %q is not HASH|SUBMISSIONS|STAGE", arg)
	}
	want, subs, stage := parts[0], parts[1], parts[2]
	var bad []string
	root := o.g.courseDir
	if got, err := courseHash(root); err != nil {
		bad = append(bad, fmt.Sprintf("the course: %v", err))
	} else if got != want {
		bad = append(bad, fmt.Sprintf("the course at %s is not the one submitted from (course.toml differs)", root))
	}
	if st, err := os.Stat(subs); err != nil || !st.IsDir() {
		bad = append(bad, fmt.Sprintf("the submissions %s are not here", subs))
	}
	cache, err := cacheDir()
	if err == nil {
		err = os.MkdirAll(cache, 0o755)
	}
	if err == nil {
		var f *os.File
		if f, err = os.CreateTemp(cache, ".preflight-*"); err == nil {
			f.Close()
			os.Remove(f.Name())
		}
	}
	if err != nil {
		bad = append(bad, fmt.Sprintf("the compile cache %s cannot be written: %v", cache, err))
	}
	m, err := findMachine(ctx, "")
	if err != nil {
		bad = append(bad, fmt.Sprintf("nvcc: %v", err))
	}
	if stage == slurm.StageRun && m != nil && m.GPUErr != nil {
		bad = append(bad, fmt.Sprintf("a GPU: %v (CUDA_VISIBLE_DEVICES=%q)", m.GPUErr, os.Getenv("CUDA_VISIBLE_DEVICES")))
	}
	if len(bad) > 0 {
		return fmt.Errorf("preflight on %s (%s): %s", host, stage, strings.Join(bad, "; "))
	}
	fmt.Printf("preflight on %s (%s): the course, the submissions, the cache, nvcc%s: all here\n", host, stage, map[bool]string{true: " and a GPU", false: ""}[stage == slurm.StageRun])
	if stage == slurm.StageRun {
		d := m.Info.Devices[0]
		fmt.Printf("%s%d.%d (%s)\n", capabilityLine, d.Major, d.Minor, d.Name)
	}
	return nil
}
