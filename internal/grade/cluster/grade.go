package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/slurm"
	"github.com/cudalessons/lessons/internal/ui"
)

// Grade is a grade of a class through Slurm: the local grade's plan,
// executed as job arrays. Note is told, a line at a time, what it does.
type Grade struct {
	Class   *grade.Class
	Dir     string // the job folder on the shared filesystem, absolute
	Exe     string // the lessons binary as the nodes see it ("": this one)
	Options slurm.Options
	Exec    slurm.Exec
	Regrade bool
	// NoPreflight submits without first checking on a node of each
	// partition that it sees the course, the submissions, the cache,
	// nvcc and a GPU.
	NoPreflight bool
	Note        func(string)
}

// Driver is the job folder's driver, with the rounds earlier grades
// submitted from it; DryRun and Submit go on with it.
func (g *Grade) Driver() (*Driver, error) {
	cl := g.Class
	if strings.HasPrefix(g.Dir, cl.Submissions+string(filepath.Separator)) {
		return nil, failure.Usagef("the job folder %s is inside the submissions: put it elsewhere with --slurm-dir", g.Dir)
	}
	exe, err := g.Exe, error(nil)
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return nil, err
	}
	cache, err := CacheDir()
	if err != nil {
		return nil, err
	}
	return NewDriver(g.Dir, g.Exec, &State{Course: cl.Course.Root, Submissions: cl.Submissions, Exe: exe, Cache: cache, Env: SandboxEnv(), Options: g.Options})
}

// DryRun is what Submit would submit, the split and the job scripts,
// given book (nil before any grade): only what book has not graded on
// the same file and spec.
func (g *Grade) DryRun(d *Driver, book *gradebook.Book) (string, error) {
	sub, err := Prepare(d, book, g.Class.Tasks, g.Regrade)
	if err != nil {
		return "", err
	}
	return d.DryRun(sub.Items), nil
}

// Submit merges what earlier rounds finished into book (a rerun resumes
// from it, and never submits an item whose tasks still run), records
// there what needs no node (unchanged, missing, not gradable), and
// submits the rest after the preflight. It returns the driver that
// follows the rounds, nil when no round is open.
func (g *Grade) Submit(ctx context.Context, d *Driver, book *gradebook.Book) (*Driver, error) {
	if err := os.MkdirAll(g.Dir, 0o755); err != nil {
		return nil, err
	}
	if len(d.Open()) > 0 {
		if _, err := d.Step(ctx, book); err != nil {
			return nil, err
		}
	}
	sub, err := Prepare(d, book, g.Class.Tasks, g.Regrade)
	if err != nil {
		return nil, err
	}
	skipped, recorded := 0, 0
	for _, st := range sub.Settled {
		if st.Skipped {
			skipped++
			continue
		}
		if err := book.Record(st.Attempt); err != nil {
			return nil, err
		}
		recorded++
	}
	items, opts := sub.Items, g.Options
	line := fmt.Sprintf("Grading %s on %s through Slurm: %s to grade, %d unchanged since the last run, %d missing or not gradable",
		ui.Count(len(g.Class.Students), "student"), ui.Count(len(g.Class.Exercises), "exercise"), ui.Count(len(items), "item"), skipped, recorded)
	if sub.Waiting > 0 {
		line += fmt.Sprintf(", %d still with the tasks of an earlier submission", sub.Waiting)
	}
	g.Note(line + ".")
	if len(items) == 0 && len(d.Open()) == 0 {
		g.Note("Nothing to submit.")
		return nil, nil
	}
	if len(items) == 0 {
		return d, nil
	}
	if !g.NoPreflight {
		if err := Preflight(ctx, d, g.Note); err != nil {
			return nil, err
		}
	}
	r, err := d.Submit(ctx, items, false)
	if err != nil {
		return nil, err
	}
	p, _ := ReadPlan(r.Plan)
	if r.BuildJob != "" {
		g.Note(fmt.Sprintf("Submitted job %s: %s (%s) on %s.", r.BuildJob, ui.Count(len(p.Builds), "build task"), ui.Count(len(Builds(items)), "distinct file"), PartitionName(opts.BuildPartition)))
	}
	g.Note(fmt.Sprintf("Submitted job %s: %s (%s, up to %d each) on %s, after the builds.", r.RunJob, ui.Count(len(p.Runs), "run task"), ui.Count(len(items), "item"), opts.ItemsPerTask, PartitionName(opts.RunPartition)))
	return d, nil
}

// Reopen is the driver of the job folder dir that a grade submitted
// from; ok is false when nothing was.
func Reopen(dir string, exec slurm.Exec) (d *Driver, ok bool, err error) {
	st, ok, err := Load(dir)
	if err != nil || !ok {
		return nil, ok, err
	}
	return &Driver{Dir: dir, Cluster: slurm.Cluster{Exec: exec}, State: st}, true, nil
}

// Wait follows the rounds every poll until each is closed (Follow),
// telling note each attempt merged, each retry and where the rounds
// stand when that changes.
func Wait(ctx context.Context, d *Driver, book *gradebook.Book, poll time.Duration, note func(string)) (*Progress, error) {
	start := time.Now()
	last := ""
	return Follow(ctx, d, book, poll, func(pr *Progress) {
		for _, a := range pr.Merged {
			note(fmt.Sprintf("%s %s: %s %d/%d", a.Student, a.Exercise, a.Status, a.Points, a.MaxPoints))
		}
		for _, b := range pr.BuildsFailed {
			note(b + ": its run tasks built those files themselves.")
		}
		for _, r := range pr.Submitted {
			p, _ := ReadPlan(r.Plan)
			note(fmt.Sprintf("Retrying %s that a killed task left: job %s, %s.", ui.Count(len(p.Items()), "item"), r.RunJob, ui.Count(len(p.Runs), "run task")))
		}
		if line := pr.Line(time.Since(start)); !pr.Finished && line != last {
			note(line)
			last = line
		}
	})
}

// Collect merges into book what the open rounds of d have finished, once
// (lessons grade collect without --wait), telling note how many it merged
// and where the rounds stand; finished is whether every round is closed.
func Collect(ctx context.Context, d *Driver, book *gradebook.Book, note func(string)) (finished bool, err error) {
	if len(d.Open()) == 0 {
		note("Every round is merged; nothing to collect.")
		return true, nil
	}
	pr, err := d.Step(ctx, book)
	if err != nil {
		return false, err
	}
	note(fmt.Sprintf("Merged %d.", len(pr.Merged)))
	if !pr.Finished {
		note(pr.Line(0))
		note("Tasks are still going: collect again later, or with --wait.")
	}
	return pr.Finished, nil
}
