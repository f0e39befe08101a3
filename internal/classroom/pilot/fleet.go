package pilot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/cudalessons/lessons/internal/safefs"
	"github.com/cudalessons/lessons/internal/slurm"
)

// Fleet keeps a class's pilot jobs submitted through Slurm: one per GPU
// node, one per build node. A pilot whose job ended (its time limit, a
// cancel, a node's failure) lets its worker go, its runs stopped, and is
// submitted again with a new secret.
type Fleet struct {
	Hub     *Hub
	Cluster slurm.Cluster
	Options slurm.Options
	// Nodes GPU pilots of GPUsPerNode GPUs and NodeCPUs cores each;
	// Builders build pilots of BuildCPUs cores.
	Nodes, GPUsPerNode, NodeCPUs int
	Builders, BuildCPUs          int
	// Dir is the class's own folder for the pilots' scripts (they hold
	// the secrets) and logs.
	Dir string
	// Exe is the lessons binary as the nodes see it, URL the server as
	// they reach it; Env is set in each job.
	Exe, URL string
	Env      []string
	Log      io.Writer
	Clock    func() time.Time

	mu    sync.Mutex
	jobs  map[string]string      // pilot -> its job's id
	tries map[string][]time.Time // each pilot's submissions in the last hour
}

// MaxTries is how often in an hour a pilot is submitted before the
// server gives up on it (a worker that cannot start would be submitted
// forever).
const MaxTries = 4

func (f *Fleet) names() []string {
	var out []string
	for i := range f.Nodes {
		out = append(out, fmt.Sprintf("gpu%d", i))
	}
	for i := range f.Builders {
		out = append(out, fmt.Sprintf("build%d", i))
	}
	return out
}

// Start cancels the pilots an earlier server left (their secrets died
// with it) and submits one for each node.
func (f *Fleet) Start(ctx context.Context) error {
	if f.Log == nil {
		f.Log = io.Discard
	}
	if f.Clock == nil {
		f.Clock = time.Now
	}
	f.jobs, f.tries = map[string]string{}, map[string][]time.Time{}
	if err := os.MkdirAll(filepath.Join(f.Dir, "logs"), 0o700); err != nil {
		return fmt.Errorf("pilots: %w", err)
	}
	os.Chmod(f.Dir, 0o700)
	if old, err := f.load(); err == nil && len(old) > 0 {
		var ids []string
		for _, id := range old {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		if err := f.Cluster.Cancel(ctx, ids...); err != nil {
			fmt.Fprintf(f.Log, "pilots: cancel the jobs an earlier server left (%v): %v\n", ids, err)
		}
	}
	for _, name := range f.names() {
		if err := f.submit(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

func (f *Fleet) file() string { return filepath.Join(f.Dir, "pilots.json") }

func (f *Fleet) load() (map[string]string, error) {
	data, err := os.ReadFile(f.file())
	if err != nil {
		return nil, err
	}
	var m map[string]string
	return m, json.Unmarshal(data, &m)
}

func (f *Fleet) saveLocked() error {
	data, _ := json.MarshalIndent(f.jobs, "", "  ")
	return safefs.WriteAtomic(f.file(), data, 0o600)
}

func (f *Fleet) submit(ctx context.Context, name string) error {
	f.mu.Lock()
	now := f.Clock()
	var recent []time.Time
	for _, t := range f.tries[name] {
		if now.Sub(t) < time.Hour {
			recent = append(recent, t)
		}
	}
	if len(recent) >= MaxTries {
		f.tries[name] = recent
		f.mu.Unlock()
		return fmt.Errorf("pilot %s: submitted %d times in an hour and ended each time: see its logs in %s", name, len(recent), filepath.Join(f.Dir, "logs"))
	}
	f.tries[name] = append(recent, now)
	f.mu.Unlock()
	p := slurm.Pilot{Name: name, CPUs: f.BuildCPUs, Dir: f.Dir, Exe: f.Exe, URL: f.URL, Secret: f.Hub.Admit(name), Env: f.Env}
	if name[:3] == "gpu" {
		p.GPUs, p.CPUs = max(f.GPUsPerNode, 1), f.NodeCPUs
	}
	script := filepath.Join(f.Dir, name+".sh")
	if err := safefs.WriteAtomic(script, []byte(slurm.PilotScript(p, f.Options.Defaults())), 0o600); err != nil {
		return fmt.Errorf("pilot %s: %w", name, err)
	}
	id, err := f.Cluster.Submit(ctx, script)
	if err != nil {
		return fmt.Errorf("pilot %s: %w", name, err)
	}
	fmt.Fprintf(f.Log, "pilots: submitted %s as job %s\n", name, id)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.jobs[name] = id
	return f.saveLocked()
}

// Check asks Slurm about the pilots once: one whose job ended lets its
// worker go and is submitted again.
func (f *Fleet) Check(ctx context.Context) error {
	f.mu.Lock()
	byJob := map[string]string{}
	var ids []string
	for name, id := range f.jobs {
		byJob[id] = name
		ids = append(ids, id)
	}
	f.mu.Unlock()
	sort.Strings(ids)
	tasks, err := f.Cluster.Tasks(ctx, ids...)
	if err != nil {
		return err
	}
	state := map[string]slurm.Task{}
	for _, t := range tasks {
		state[t.Job] = t
	}
	var errs []error
	for _, id := range ids {
		t, known := state[id]
		if known && !t.Ended() {
			continue
		}
		why := "was forgotten by Slurm"
		if known {
			why = fmt.Sprintf("ended (%s)", t.State)
		}
		name := byJob[id]
		f.Hub.Revoke(name, fmt.Sprintf("job %s %s", id, why))
		fmt.Fprintf(f.Log, "pilots: %s's job %s %s; submitting it again\n", name, id, why)
		if err := f.submit(ctx, name); err != nil {
			f.mu.Lock()
			delete(f.jobs, name)
			f.saveLocked()
			f.mu.Unlock()
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Watch checks the pilots every poll until ctx ends.
func (f *Fleet) Watch(ctx context.Context, poll time.Duration) {
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := f.Check(ctx); err != nil && ctx.Err() == nil {
				fmt.Fprintf(f.Log, "pilots: %v\n", err)
			}
		}
	}
}

// Stop cancels every pilot (the server is stopping).
func (f *Fleet) Stop(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ids []string
	for name, id := range f.jobs {
		ids = append(ids, id)
		f.Hub.Revoke(name, "was stopped with the server")
	}
	sort.Strings(ids)
	err := f.Cluster.Cancel(ctx, ids...)
	if err == nil {
		f.jobs = map[string]string{}
		os.Remove(f.file())
	}
	return err
}

// Jobs are the pilots' job ids by name.
func (f *Fleet) Jobs() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]string{}
	for k, v := range f.jobs {
		out[k] = v
	}
	return out
}
