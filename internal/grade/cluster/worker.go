package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/rig"
	"github.com/cudalessons/lessons/internal/slurm"
	"github.com/cudalessons/lessons/internal/ui"
)

// Worker is what a Slurm task of a grade runs on its node: a share of a
// round's builds or runs, or the preflight of its partition.
type Worker struct {
	Stage  string // build, run or preflight
	Arg    string // the plan's path; the preflight's HASH|SUBMISSIONS|STAGE
	Index  int    // the task's index in its array
	Course string // the course's root, as this node sees it
	Host   string
	// Log is the task's log (its standard output in Slurm's log file).
	Log io.Writer
}

// TaskIndex is the worker's index in its array: flag when it is set
// (0 and up), else $SLURM_ARRAY_TASK_ID.
func TaskIndex(flag int) (int, error) {
	if flag >= 0 {
		return flag, nil
	}
	v := os.Getenv("SLURM_ARRAY_TASK_ID")
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, failure.Usagef("grade worker: no SLURM_ARRAY_TASK_ID (%q) and no --task: it runs inside a Slurm array", v)
	}
	return n, nil
}

// Run does the worker's share.
func (w *Worker) Run(ctx context.Context) error {
	switch w.Stage {
	case "preflight":
		return w.preflight(ctx)
	case slurm.StageBuild, slurm.StageRun:
	default:
		return failure.Usagef("grade worker: stage %q is build, run or preflight", w.Stage)
	}
	p, err := ReadPlan(w.Arg)
	if err != nil {
		return err
	}
	items, err := w.share(p)
	if err != nil {
		return err
	}
	fmt.Fprintf(w.Log, "lessons grade worker: %s task %d on %s: %s\n", w.Stage, w.Index, w.Host, ui.Count(len(items), "item"))
	if len(items) == 0 {
		return nil
	}
	tasks, err := w.tasks(p, items)
	if err != nil {
		return err
	}
	r, err := w.rig(ctx, p)
	if err != nil {
		return err
	}
	defer r.Close()
	tk, sb := r.Toolkit, r.Sandbox
	if w.Stage == slurm.StageRun {
		fmt.Fprintf(w.Log, "lessons grade worker: outside witness %s\n", r.Witness)
	}
	if w.Stage == slurm.StageBuild {
		return w.build(ctx, grade.Pipeline{Toolkit: tk, Runner: sb}, tasks)
	}
	// --per-gpu and --gpu-queues, or their choice from what this task
	// runs, as a local grade makes it.
	choice := grade.ChooseFor(p.PerGPU, p.Queues, tasks)
	return w.run(ctx, choice.Pipeline(tk, sb), p, items, tasks, choice.PerDevice)
}

// share is the task's items: a build task's files, or a run task's items
// that it has not finished (a task started again skips those).
func (w *Worker) share(p *Plan) ([]Item, error) {
	var items []Item
	if w.Stage == slurm.StageBuild {
		if w.Index >= len(p.Builds) {
			return nil, fmt.Errorf("grade worker: build task %d of %d", w.Index, len(p.Builds))
		}
		for _, b := range p.Builds[w.Index] {
			items = append(items, Item{Student: b.Student, Exercise: b.Exercise, SourceHash: b.SourceHash})
		}
		return items, nil
	}
	if w.Index >= len(p.Runs) {
		return nil, fmt.Errorf("grade worker: run task %d of %d", w.Index, len(p.Runs))
	}
	for _, it := range p.Runs[w.Index] {
		_, done, err := ReadResult(p.Results, it)
		if err != nil {
			return nil, err
		}
		if !done {
			items = append(items, it)
		}
	}
	return items, nil
}

// tasks are the grade tasks of items, read as a local grade reads them
// (the student's file now; a file changed since the submission is
// graded as it is, and its result says so by its hash).
func (w *Worker) tasks(p *Plan, items []Item) ([]*grade.Task, error) {
	var only []string
	want := map[string]bool{}
	for _, it := range items {
		if !want[it.Exercise] {
			only = append(only, it.Exercise)
			want[it.Exercise] = true
		}
	}
	c, err := course.Load(p.Course)
	if err != nil {
		return nil, err
	}
	cl, err := grade.LoadClass(c, p.Submissions, "", only)
	if err != nil {
		return nil, err
	}
	want = map[string]bool{}
	for _, it := range items {
		want[it.Student+"\x00"+it.Exercise] = true
	}
	var tasks []*grade.Task
	for _, t := range cl.Tasks {
		if want[t.Student+"\x00"+t.Exercise.ID] {
			tasks = append(tasks, t)
		}
	}
	return tasks, nil
}

// rig is this node's: a run node needs a GPU (the driver's view of each
// run, as a local grade has it); a CPU node builds for the run nodes'
// GPU, as a run node would.
func (w *Worker) rig(ctx context.Context, p *Plan) (*rig.Rig, error) {
	if w.Stage == slurm.StageRun {
		r, err := rig.RunNode(ctx, "grade worker", "lessons-task-")
		if err != nil {
			return nil, err
		}
		if p.Capability != "" && r.Machine.Arch() != "sm_"+strings.ReplaceAll(p.Capability, ".", "") {
			fmt.Fprintf(w.Log, "lessons grade worker: this node's GPU is %s, the build tasks built for %s: building here\n", r.Machine.Arch(), p.Capability)
		}
		return r, nil
	}
	r, err := rig.BuildNode(ctx, p.Capability, "lessons-task-")
	if errors.Is(err, rig.ErrCapability) {
		return nil, fmt.Errorf("grade worker: the plan names no GPU to build for (%q)", p.Capability)
	}
	return r, err
}

// build builds a share of the distinct files into the shared cache, on
// the task's cores, through grade's scheduler. A file that does not
// compile is the student's business (the run task records it); a tool
// that fails fails the task, which the run tasks then make up for.
func (w *Worker) build(ctx context.Context, tc grade.Toolchain, tasks []*grade.Task) error {
	var mu sync.Mutex
	var failed []string
	items := grade.Items(tasks, tc, grade.Sinks{Built: func(t *grade.Task, b *grade.Built) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w.Log, "%s %s: %s in %s\n", t.Student, t.Exercise.ID, buildWord(b), b.Took.Round(time.Millisecond))
		if b.Err != nil {
			failed = append(failed, fmt.Sprintf("%s %s: %v", t.Student, t.Exercise.ID, b.Err))
		}
	}})
	grade.Schedule(ctx, items, grade.Slots{Jobs: TaskCPUs()})
	if len(failed) > 0 {
		return fmt.Errorf("%d builds failed (the run tasks build them again):\n%s", len(failed), strings.Join(failed, "\n"))
	}
	return ctx.Err()
}

// TaskCPUs are the cores Slurm gave the task: its builds at once.
func TaskCPUs() int {
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

// run grades a share of the items on this task's GPU, with the local
// grade's pipeline, items and scheduler (per GPU, a timed exercise's
// alone); each attempt becomes a result file on the shared filesystem as
// it is made. The class's gradebook is written only by the submitting
// node.
func (w *Worker) run(ctx context.Context, tc grade.Toolchain, p *Plan, items []Item, tasks []*grade.Task, perGPU int) error {
	byPair := map[string]Item{}
	for _, it := range items {
		byPair[it.Student+"\x00"+it.Exercise] = it
	}
	taskID := fmt.Sprintf("%s_%d", os.Getenv("SLURM_ARRAY_JOB_ID"), w.Index)
	start := time.Now()
	var mu sync.Mutex // the sink is called from any goroutine
	var werr error
	n := 0
	sink := func(a *gradebook.Attempt) {
		if cancelledWith(ctx, a, time.After(signalGrace)) {
			return // stopped half way: the task is started again, or retried
		}
		r := &Result{Item: byPair[a.Student+"\x00"+a.Exercise], Attempt: a, Task: taskID, Node: w.Host}
		err := WriteResult(p.Results, r)
		mu.Lock()
		defer mu.Unlock()
		if err != nil && werr == nil {
			werr = err
		}
		n++
		fmt.Fprintf(w.Log, "%s %s: %s %d/%d\n", a.Student, a.Exercise, a.Status, a.Points, a.MaxPoints)
	}
	// One build at a time: the build tasks have filled the shared cache,
	// and the task's cores are its runs'.
	devices := machine.Devices(1)
	grade.Schedule(ctx, grade.Items(tasks, tc, grade.Sinks{Graded: sink}), grade.Slots{Jobs: 1, Devices: devices, PerDevice: perGPU})
	if werr != nil {
		return werr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	fmt.Fprintf(w.Log, "lessons grade worker: %d graded in %s on GPU %s\n", n, time.Since(start).Round(time.Millisecond), strings.Join(devices, ","))
	return nil
}

// cancelledWith is whether a's program was killed by the signal that
// cancels the task: Slurm signals every process of a task at once (scancel,
// a time limit, a preemption), so the program may die of it before this
// process hears of it, and its "killed by signal 15" is no verdict on
// the student's code. Such an attempt waits a moment for the task's own
// signal, until grace; it is kept only if none comes.
func cancelledWith(ctx context.Context, a *gradebook.Attempt, grace <-chan time.Time) bool {
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
	case <-grace:
		return false
	}
}

// signalGrace is how long a program's death by signal waits for its
// task's own: Slurm sends both at once.
const signalGrace = 2 * time.Second

// preflight checks, on a compute node, what its tasks will need, and
// logs the run nodes' GPU for the submitting node.
func (w *Worker) preflight(ctx context.Context) error {
	parts := strings.SplitN(w.Arg, "|", 3)
	if len(parts) != 3 {
		return failure.Usagef("grade worker preflight: %q is not HASH|SUBMISSIONS|STAGE", w.Arg)
	}
	want, subs, stage := parts[0], parts[1], parts[2]
	var bad []string
	root := w.Course
	if got, err := CourseHash(root); err != nil {
		bad = append(bad, fmt.Sprintf("the course: %v", err))
	} else if got != want {
		bad = append(bad, fmt.Sprintf("the course at %s is not the one submitted from (course.toml differs)", root))
	}
	if st, err := os.Stat(subs); err != nil || !st.IsDir() {
		bad = append(bad, fmt.Sprintf("the submissions %s are not here", subs))
	}
	cache, err := CacheDir()
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
	m, err := rig.Look(ctx)
	if err != nil {
		bad = append(bad, fmt.Sprintf("nvcc: %v", err))
	}
	if stage == slurm.StageRun && m != nil && m.GPUErr != nil {
		bad = append(bad, fmt.Sprintf("a GPU: %v (CUDA_VISIBLE_DEVICES=%q)", m.GPUErr, os.Getenv("CUDA_VISIBLE_DEVICES")))
	}
	if len(bad) > 0 {
		return fmt.Errorf("preflight on %s (%s): %s", w.Host, stage, strings.Join(bad, "; "))
	}
	fmt.Fprintf(w.Log, "preflight on %s (%s): the course, the submissions, the cache, nvcc%s: all here\n", w.Host, stage, map[bool]string{true: " and a GPU", false: ""}[stage == slurm.StageRun])
	if stage == slurm.StageRun {
		d := m.Info.Devices[0]
		fmt.Fprintf(w.Log, "%s%d.%d (%s)\n", capabilityLine, d.Major, d.Minor, d.Name)
	}
	return nil
}
