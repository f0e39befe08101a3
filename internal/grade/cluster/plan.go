// Package cluster is the second executor of a grade's plan: on a Slurm
// cluster, as job arrays (builds on CPU nodes into the shared,
// content-addressed compile cache; runs on GPU nodes after them), with a
// preflight of the nodes first, the node worker that runs each task
// through grade's one scheduler, one result file per graded item on the
// shared filesystem, and the merge of those files into the gradebook by
// the node that submitted the jobs. SQLite is never written by the
// compute nodes. Slurm's own commands and job scripts are internal/slurm's.
package cluster

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/cudalessons/lessons/internal/safefs"
)

// Item is one student's file for one exercise, to be built and run.
type Item struct {
	Student    string `json:"student"`
	Exercise   string `json:"exercise"`
	SourceHash string `json:"source_hash"`
	SpecHash   string `json:"spec_hash"`
	MaxPoints  int    `json:"max_points"`
}

// Build is one distinct file to build: a file handed in by many students
// is built once, from the first of them.
type Build struct {
	Student    string `json:"student"`
	Exercise   string `json:"exercise"`
	SourceHash string `json:"source_hash"`
}

// Plan is one round of jobs: what each build task builds and what each
// run task grades. The compute nodes read it from the job folder.
type Plan struct {
	Round       int       `json:"round"`
	Course      string    `json:"course"`
	Submissions string    `json:"submissions"`
	Results     string    `json:"results"`
	Builds      [][]Build `json:"builds"`               // per build task; none in a retry round
	Runs        [][]Item  `json:"runs"`                 // per run task
	PerGPU      int       `json:"per_gpu"`              // runs at once on a task's GPU
	Capability  string    `json:"capability,omitempty"` // the GPU the builds are for
	Queues      int       `json:"queues,omitempty"`
}

// Split cuts xs into parts of at most per, in order.
func Split[T any](xs []T, per int) [][]T {
	per = max(per, 1)
	var out [][]T
	for len(xs) > 0 {
		n := min(per, len(xs))
		out = append(out, xs[:n:n])
		xs = xs[n:]
	}
	return out
}

// Builds are the distinct files among items, in order of first use.
func Builds(items []Item) []Build {
	seen := map[string]bool{}
	var out []Build
	for _, it := range items {
		k := it.Exercise + "@" + it.SourceHash
		if !seen[k] {
			seen[k] = true
			out = append(out, Build{Student: it.Student, Exercise: it.Exercise, SourceHash: it.SourceHash})
		}
	}
	return out
}

// NewPlan splits items into run tasks of itemsPerTask, and (unless retry)
// their distinct files into build tasks of buildsPerTask.
func NewPlan(round int, items []Item, itemsPerTask, buildsPerTask int, retry bool) *Plan {
	p := &Plan{Round: round, Runs: Split(items, itemsPerTask)}
	if !retry {
		p.Builds = Split(Builds(items), buildsPerTask)
	}
	return p
}

// Items are every item of the plan.
func (p *Plan) Items() []Item {
	var out []Item
	for _, r := range p.Runs {
		out = append(out, r...)
	}
	return out
}

// ReadPlan reads a plan written by WritePlan.
func ReadPlan(path string) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read plan: %w", err)
	}
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("read plan %s: %w (written by another version of lessons?)", path, err)
	}
	return &p, nil
}

// WritePlan writes the plan whole, or not at all.
func WritePlan(path string, p *Plan) error {
	data, err := json.MarshalIndent(p, "", " ")
	if err != nil {
		return err
	}
	return WriteAtomic(path, data)
}

// WriteAtomic writes a file whole or not at all, and durably, so that a
// node that dies right after leaves the old file or the new one on the
// shared filesystem, and a reader on another node never sees half a file.
func WriteAtomic(path string, data []byte) error { return safefs.WriteAtomic(path, data, 0o644) }
