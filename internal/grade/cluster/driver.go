package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/slurm"
)

// State is the job folder's record of what was submitted: enough for
// lessons grade collect to merge, retry and finish without the course.
type State struct {
	Course      string        `json:"course"`
	Submissions string        `json:"submissions"`
	Exe         string        `json:"exe"`
	Cache       string        `json:"cache"`
	Env         []string      `json:"env,omitempty"`
	Options     slurm.Options `json:"options"`
	// Capability is the run nodes' GPU's compute capability (9.0), as
	// the preflight found it: builds on CPU nodes are made for it, so
	// that the run tasks find them in the cache. Unknown (no preflight),
	// there is no build array: the run tasks build.
	Capability string   `json:"capability,omitempty"`
	Rounds     []*Round `json:"rounds"`
}

// Round is one submission: a build array and a run array, or (a retry)
// a run array alone.
type Round struct {
	N        int    `json:"n"`
	Plan     string `json:"plan"`
	BuildJob string `json:"build_job,omitempty"`
	RunJob   string `json:"run_job"`
	Retry    bool   `json:"retry,omitempty"`
	// Closed is set when every item has a result, was retried in a
	// later round, or was recorded as not gradable.
	Closed bool `json:"closed,omitempty"`
}

// Jobs are the job ids of the round.
func (r *Round) Jobs() []string {
	if r.BuildJob == "" {
		return []string{r.RunJob}
	}
	return []string{r.BuildJob, r.RunJob}
}

// Driver submits, follows and merges the rounds of one job folder.
type Driver struct {
	Dir     string // the job folder, on the shared filesystem
	Cluster interface {
		Submit(ctx context.Context, script string, args ...string) (string, error)
		Tasks(ctx context.Context, jobs ...string) ([]slurm.Task, error)
		Cancel(ctx context.Context, jobs ...string) error
	}
	State *State
}

// Results is the folder of result files.
func (d *Driver) Results() string { return filepath.Join(d.Dir, "results") }

func (d *Driver) statePath() string { return filepath.Join(d.Dir, "state.json") }

// Load reads the job folder's state; ok is false when nothing was
// submitted from it yet.
func Load(dir string) (st *State, ok bool, err error) {
	data, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	st = &State{}
	if err := json.Unmarshal(data, st); err != nil {
		return nil, false, fmt.Errorf("read %s: %w", filepath.Join(dir, "state.json"), err)
	}
	return st, true, nil
}

// Save writes the state, atomically.
func (d *Driver) Save() error {
	data, err := json.MarshalIndent(d.State, "", " ")
	if err != nil {
		return err
	}
	return WriteAtomic(d.statePath(), data)
}

// Open are the rounds not closed yet.
func (d *Driver) Open() []*Round {
	var out []*Round
	for _, r := range d.State.Rounds {
		if !r.Closed {
			out = append(out, r)
		}
	}
	return out
}

// Prepare writes a round's plan and job scripts without submitting them
// (what --dry-run shows).
func (d *Driver) Prepare(items []Item, retry bool) (*Round, *Plan, map[string]string) {
	st := d.State
	o := st.Options.Defaults()
	n := len(st.Rounds)
	p := NewPlan(n, items, o.ItemsPerTask, o.BuildsPerTask, retry || st.Capability == "")
	p.Capability = st.Capability
	// Each round has a results folder of its own: a task started again
	// skips what its round has finished, and --regrade starts afresh.
	p.Course, p.Submissions, p.Results = st.Course, st.Submissions, filepath.Join(d.Results(), fmt.Sprint(n))
	p.PerGPU, p.Queues = o.PerGPU, o.Queues
	r := &Round{N: n, Plan: filepath.Join(d.Dir, fmt.Sprintf("plan-%d.json", n)), Retry: retry}
	scripts := map[string]string{}
	job := slurm.Job{Dir: d.Dir, Exe: st.Exe, Course: st.Course, Cache: st.Cache, Env: st.Env}
	if len(p.Builds) > 0 {
		job.Name, job.Tasks, job.Args = slurm.StageBuild, len(p.Builds), []string{slurm.StageBuild, r.Plan}
		scripts[slurm.StageBuild] = slurm.Script(job, o)
	}
	job.Name, job.GPU, job.Tasks, job.Args = slurm.StageRun, true, len(p.Runs), []string{slurm.StageRun, r.Plan}
	scripts[slurm.StageRun] = slurm.Script(job, o)
	return r, p, scripts
}

// Submit submits a round: the build array, then the run array after it
// (afterany: a build task that failed leaves its files to the run tasks,
// which build what the cache lacks).
func (d *Driver) Submit(ctx context.Context, items []Item, retry bool) (*Round, error) {
	r, p, scripts := d.Prepare(items, retry)
	var err error
	for _, dir := range []string{filepath.Join(d.Dir, "logs"), p.Results} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	if err := WritePlan(r.Plan, p); err != nil {
		return nil, err
	}
	var dep []string
	if s, ok := scripts[slurm.StageBuild]; ok {
		path := filepath.Join(d.Dir, fmt.Sprintf("build-%d.sh", r.N))
		if err := WriteAtomic(path, []byte(s)); err != nil {
			return nil, err
		}
		if r.BuildJob, err = d.Cluster.Submit(ctx, path); err != nil {
			return nil, err
		}
		dep = []string{"--dependency=afterany:" + r.BuildJob}
	}
	path := filepath.Join(d.Dir, fmt.Sprintf("run-%d.sh", r.N))
	if err := WriteAtomic(path, []byte(scripts[slurm.StageRun])); err != nil {
		return nil, err
	}
	if r.RunJob, err = d.Cluster.Submit(ctx, path, dep...); err != nil {
		if r.BuildJob != "" {
			d.Cluster.Cancel(context.WithoutCancel(ctx), r.BuildJob)
		}
		return nil, err
	}
	d.State.Rounds = append(d.State.Rounds, r)
	return r, d.Save()
}

// Progress is where the open rounds stand.
type Progress struct {
	Items, Done              int
	Pending, Running, Failed int // run and build tasks
	Merged                   []*gradebook.Attempt
	Retried, NotGraded       int
	Submitted                []*Round // retry rounds submitted by this step
	// BuildsFailed are the build tasks of the rounds closed by this step
	// that did not complete: their files were built by the run tasks.
	BuildsFailed []string
	Finished     bool // every round is closed
	Retrying     bool // the open rounds are all retries
}

// Step merges what the open rounds have finished, and closes each round
// whose jobs have all ended: its items with no result are submitted again
// once (a new run array), or, in a retry round, recorded as not graded
// with the reason. It never waits.
func (d *Driver) Step(ctx context.Context, book Book) (*Progress, error) {
	pr := &Progress{}
	for _, r := range d.Open() {
		p, err := ReadPlan(r.Plan)
		if err != nil {
			return pr, err
		}
		items := p.Items()
		m, err := Merge(book, p.Results, items)
		pr.Merged = append(pr.Merged, m.New...)
		if err != nil {
			return pr, err
		}
		pr.Items += len(items)
		pr.Done += m.Done
		tasks, err := d.Cluster.Tasks(ctx, r.Jobs()...)
		if err != nil {
			return pr, err
		}
		ended := true
		byTask := map[string]slurm.Task{}
		for _, t := range tasks {
			byTask[t.ID()] = t
			switch {
			case t.State == "PENDING":
				pr.Pending++
				ended = false
			case !t.Ended():
				pr.Running++
				ended = false
			case t.State != "COMPLETED":
				pr.Failed++
			}
		}
		if !ended {
			continue
		}
		for _, t := range tasks {
			if t.Job == r.BuildJob && t.State != "COMPLETED" {
				pr.BuildsFailed = append(pr.BuildsFailed, fmt.Sprintf("build task %s ended %s (see %s)", t.ID(), strings.ToLower(strings.TrimSpace(t.State+" "+t.Reason)),
					filepath.Join(d.Dir, "logs", fmt.Sprintf("build-%s.log", t.ID()))))
			}
		}
		if len(m.Missing) > 0 && !r.Retry {
			nr, err := d.Submit(ctx, m.Missing, true)
			if err != nil {
				return pr, err
			}
			pr.Retried += len(m.Missing)
			pr.Submitted = append(pr.Submitted, nr)
		} else {
			for _, it := range m.Missing {
				a := &gradebook.Attempt{Student: it.Student, Exercise: it.Exercise, Status: gradebook.Error, MaxPoints: it.MaxPoints,
					SourceHash: it.SourceHash, SpecHash: it.SpecHash, GradedAt: time.Now().UTC(),
					Reason: "could not be graded on the cluster: " + why(d.Dir, p, r, it, byTask)}
				if err := book.Record(a); err != nil {
					return pr, err
				}
				pr.Merged = append(pr.Merged, a)
				pr.NotGraded++
			}
		}
		r.Closed = true
		if err := d.Save(); err != nil {
			return pr, err
		}
	}
	pr.Finished = len(d.Open()) == 0
	pr.Retrying = !pr.Finished
	for _, r := range d.Open() {
		pr.Retrying = pr.Retrying && r.Retry
	}
	return pr, nil
}

// why says how the task that had it ended, for an item with no result.
func why(dir string, p *Plan, r *Round, it Item, tasks map[string]slurm.Task) string {
	for i, run := range p.Runs {
		for _, x := range run {
			if x != it {
				continue
			}
			id := fmt.Sprintf("%s_%d", r.RunJob, i)
			t, ok := tasks[id]
			switch {
			case !ok:
				return fmt.Sprintf("task %s is gone from Slurm's records and wrote no result (see %s)", id, logName(dir, r, i))
			case t.State == "COMPLETED":
				return fmt.Sprintf("task %s ended without writing its result (see %s)", id, logName(dir, r, i))
			}
			reason := t.State
			if t.Reason != "" {
				reason += " " + t.Reason
			}
			return fmt.Sprintf("task %s (a retry) ended %s (see %s)", id, strings.ToLower(reason), logName(dir, r, i))
		}
	}
	return "no task had it"
}

func logName(dir string, r *Round, i int) string {
	return filepath.Join(dir, "logs", fmt.Sprintf("run-%s_%d.log", r.RunJob, i))
}

// Cancel cancels the jobs of the open rounds.
func (d *Driver) Cancel(ctx context.Context) error {
	var jobs []string
	for _, r := range d.Open() {
		jobs = append(jobs, r.Jobs()...)
	}
	return d.Cluster.Cancel(ctx, jobs...)
}

// Line is the progress in a line, with the time left at the rate of el
// so far (0: none said).
func (pr *Progress) Line(el time.Duration) string {
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
