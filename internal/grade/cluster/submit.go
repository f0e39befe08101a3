package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/slurm"
	"github.com/cudalessons/lessons/internal/ui"
)

// NewDriver is the driver of the job folder dir for a grade of st: the
// rounds an earlier grade submitted from dir, and the GPU its preflight
// found, are kept.
func NewDriver(dir string, exec slurm.Exec, st *State) (*Driver, error) {
	d := &Driver{Dir: dir, Cluster: slurm.Cluster{Exec: exec}, State: st}
	prev, had, err := Load(dir)
	if err != nil {
		return nil, err
	}
	if had {
		st.Rounds, st.Capability = prev.Rounds, prev.Capability
	}
	return d, nil
}

// SandboxEnv are the settings of the sandbox that the tasks keep.
func SandboxEnv() []string {
	var env []string
	for _, k := range []string{"LESSONS_SANDBOX_USERS", "LESSONS_SANDBOX_READ", "LESSONS_SANDBOX_CGROUPS", "LESSONS_GPU", "LESSONS_CACHE_MAX"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// CacheDir is the compile cache's folder, absolute: the nodes share it.
func CacheDir() (string, error) {
	c, err := buildcache.Default()
	if err != nil {
		return "", err
	}
	return filepath.Abs(c.Dir)
}

// Submission is what a grade on the cluster submits, and what it settles
// without the cluster.
type Submission struct {
	Items []Item // to build and run on the nodes
	// Settled are graded here, by a local grade's resume rule: unchanged,
	// missing, or a file that cannot be graded.
	Settled []grade.Settled
	// Waiting counts the tasks whose items an earlier round still grades.
	Waiting int
}

// Prepare splits a class's tasks into the items for the cluster and those
// settled here; with no book (a dry run before any grade) every task with
// a gradable file is an item. An item whose tasks of an earlier round
// still run is never submitted again.
func Prepare(d *Driver, book *gradebook.Book, tasks []*grade.Task, regrade bool) (*Submission, error) {
	running := map[string]bool{}
	for _, r := range d.Open() {
		p, err := ReadPlan(r.Plan)
		if err != nil {
			return nil, err
		}
		for _, it := range p.Items() {
			running[it.Student+"\x00"+it.Exercise] = true
		}
	}
	s := &Submission{}
	var mine []*grade.Task
	for _, t := range tasks {
		if running[t.Student+"\x00"+t.Exercise.ID] {
			s.Waiting++
			continue
		}
		mine = append(mine, t)
	}
	todo := mine
	if book != nil {
		var err error
		if todo, s.Settled, err = grade.Plan(book, mine, regrade); err != nil {
			return nil, err
		}
	} else {
		todo = nil
		for _, t := range mine {
			if t.Source != nil && t.Problem == "" {
				todo = append(todo, t)
			}
		}
	}
	for _, t := range todo {
		s.Items = append(s.Items, Item{Student: t.Student, Exercise: t.Exercise.ID, SourceHash: t.SourceHash, SpecHash: t.SpecHash, MaxPoints: t.Spec.Points})
	}
	return s, nil
}

// DryRun is what a dry run shows of a round of items: the split and the
// job scripts, nothing written.
func (d *Driver) DryRun(items []Item) string {
	if len(items) == 0 {
		return "Nothing to submit: every item is graded on its current file and spec, or has no file.\n"
	}
	if d.State.Capability == "" {
		// The preflight gives the run nodes' GPU, which the builds are
		// made for; shown as they will be once it has.
		d.State.Capability = "?"
	}
	r, p, scripts := d.Prepare(items, false)
	o := d.State.Options
	var w strings.Builder
	fmt.Fprintf(&w, "# %s, %s\n", ui.Count(len(items), "item"), ui.Count(len(Builds(items)), "distinct file"))
	if len(p.Builds) > 0 {
		fmt.Fprintf(&w, "# build array: %s of up to %d files\n", ui.Count(len(p.Builds), "task"), o.BuildsPerTask)
		for i, b := range p.Builds {
			fmt.Fprintf(&w, "#   build %d: %s\n", i, list(b, func(b Build) string { return b.Exercise + " of " + b.Student }))
		}
	}
	fmt.Fprintf(&w, "# run array: %s of up to %d items\n", ui.Count(len(p.Runs), "task"), o.ItemsPerTask)
	for i, run := range p.Runs {
		fmt.Fprintf(&w, "#   run %d: %s\n", i, list(run, func(it Item) string { return it.Student + " " + it.Exercise }))
	}
	fmt.Fprintf(&w, "\n$ sbatch --parsable %s/build-%d.sh\n%s", d.Dir, r.N, scripts[slurm.StageBuild])
	fmt.Fprintf(&w, "\n$ sbatch --parsable --dependency=afterany:BUILD_JOB %s/run-%d.sh\n%s", d.Dir, r.N, scripts[slurm.StageRun])
	return w.String()
}

func list[T any](xs []T, name func(T) string) string {
	var s []string
	for _, x := range xs {
		s = append(s, name(x))
	}
	return ui.Clip(strings.Join(s, ", "), 200)
}

// PartitionName names partition p in a sentence.
func PartitionName(p string) string {
	if p == "" {
		return "the default partition"
	}
	return "partition " + p
}

// Follow steps the open rounds every poll until each is closed, merging
// into book as results come, and tells each step's progress to each. It
// returns the last progress, or ctx's error once ctx is done (the tasks
// go on); a step itself is never cut short.
func Follow(ctx context.Context, d *Driver, book *gradebook.Book, poll time.Duration, each func(*Progress)) (*Progress, error) {
	for {
		pr, err := d.Step(context.WithoutCancel(ctx), book)
		if err != nil {
			return pr, err
		}
		each(pr)
		if pr.Finished {
			return pr, nil
		}
		select {
		case <-time.After(poll):
		case <-ctx.Done():
			return pr, ctx.Err()
		}
	}
}

// Preflight runs the worker's preflight on a node of each partition
// before the arrays are submitted (hundreds of tasks that all fail on a
// missing path help nobody), and keeps the run nodes' GPU in the state,
// that the builds are made for it. note is told what it waits for; a
// failure is a *failure.Tool naming the nodes and what they lack.
func Preflight(ctx context.Context, d *Driver, note func(string)) error {
	opts := d.State.Options
	if err := os.MkdirAll(filepath.Join(d.Dir, "logs"), 0o755); err != nil {
		return err
	}
	want, err := CourseHash(d.State.Course)
	if err != nil {
		return err
	}
	// Both preflights are submitted at once and followed like the arrays.
	cl := d.Cluster
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
		if err := WriteAtomic(path, []byte(slurm.Script(job, o2))); err != nil {
			return err
		}
		id, err := cl.Submit(ctx, path)
		if err != nil {
			cl.Cancel(ctx, ids...)
			return failure.Toolf("preflight: %w", err)
		}
		jobs[stage] = id
		ids = append(ids, id)
	}
	note(fmt.Sprintf("Preflight: jobs %s on %s and %s...", strings.Join(ids, " and "), PartitionName(parts[slurm.StageBuild]), PartitionName(parts[slurm.StageRun])))
	logOf := func(stage, job string) string {
		return filepath.Join(d.Dir, "logs", fmt.Sprintf("preflight-%s-%s_0.log", stage, job))
	}
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
				log, _ := os.ReadFile(logOf(stage, t.Job))
				why := strings.TrimSpace(strings.ReplaceAll(string(log), "lessons: ", ""))
				if why == "" {
					why = "its task ended " + strings.ToLower(t.State)
				}
				bad = append(bad, fmt.Sprintf("the %s nodes (%s): %s", stage, PartitionName(parts[stage]), why))
			}
			if len(bad) > 0 {
				return failure.Toolf("preflight failed on %s\n(fix it, or skip the preflight with --no-preflight)", strings.Join(bad, "\n"))
			}
			log, _ := os.ReadFile(logOf(slurm.StageRun, jobs[slurm.StageRun]))
			for _, line := range strings.Split(string(log), "\n") {
				if c, ok := strings.CutPrefix(line, capabilityLine); ok {
					d.State.Capability, _, _ = strings.Cut(c, " ")
					note(fmt.Sprintf("Preflight: the run nodes have what they need; their GPU: %s; builds are made for it.", c))
				}
			}
			for _, id := range ids {
				for _, stage := range []string{slurm.StageBuild, slurm.StageRun} {
					os.Remove(logOf(stage, id))
				}
			}
			return nil
		}
		if time.Since(said) > 30*time.Second {
			note(fmt.Sprintf("Preflight: waiting for %s (Ctrl-C, then --no-preflight, to skip it)", strings.Join(waiting, ", ")))
			said = time.Now()
		}
		select {
		case <-time.After(500 * time.Millisecond):
		case <-ctx.Done():
			cl.Cancel(context.WithoutCancel(ctx), ids...)
			return ctx.Err()
		}
	}
}

// capabilityLine starts the preflight's line that gives the run nodes'
// GPU, "compute capability: 9.0 (NVIDIA H100 80GB HBM3)".
const capabilityLine = "compute capability: "

// CourseHash is a hash of course.toml: the nodes must see the same.
func CourseHash(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, course.ManifestName))
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:8]), nil
}
