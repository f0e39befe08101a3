package pilot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/cudalessons/lessons/internal/classroom/queue"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/runner"
	"github.com/cudalessons/lessons/internal/safefs"
)

// Remote sends the class's runs to worker nodes (pilot jobs, through
// Slurm): a run whose queue slot is on a node's GPU goes to that node,
// and every build to a build node while one is connected. What stays
// here is the queue, the students' files and the gradebook.
type Remote struct {
	Hub *Hub
	// Course is the course's root, sent to the nodes (as a tar.gz, by
	// its hash) for their exercises' specs; Solutions (from the root)
	// go empty: the secret specs beside them are needed there, their
	// text is not.
	Course    string
	Solutions []string
	// Progs is the folder where programs built on a node are kept (the
	// class's own, by hash).
	Progs string

	once     sync.Once
	tgz      []byte
	tgzHash  string
	tgzError error
}

// Join and Leave are the hub's callbacks for queue q: a worker's GPUs
// get per run slots each while it is connected.
func Join(q *queue.Queue, per int) func([]string) {
	return func(devs []string) {
		for _, d := range devs {
			q.AddDevice(d, per)
		}
	}
}

// Leave takes a gone worker's GPUs out of q.
func Leave(q *queue.Queue) func([]string) {
	return func(devs []string) {
		for _, d := range devs {
			q.DropDevice(d)
		}
	}
}

func (r *Remote) course() ([]byte, string, error) {
	r.once.Do(func() {
		r.tgz, r.tgzError = Tar(r.Course, r.Solutions)
		r.tgzHash = Hash(r.tgz)
	})
	return r.tgz, r.tgzHash, r.tgzError
}

// Toolchain is local with the builds and the runs on nodes' GPUs sent
// to the nodes.
func (r *Remote) Toolchain(local grade.Toolchain) grade.Toolchain {
	return remoteToolchain{local: local, r: r}
}

type remoteToolchain struct {
	local grade.Toolchain
	r     *Remote
}

// job is t as a node's job: the course, the student's files and
// whether the hidden checks are left out.
func (r *Remote) job(kind string, t *grade.Task) (*Job, map[string][]byte, error) {
	tgz, h, err := r.course()
	if err != nil {
		return nil, nil, err
	}
	blobs := map[string][]byte{h: tgz}
	job := &Job{Kind: kind, Course: h, Exercise: t.Exercise.ID, Student: t.Student, SourceHash: t.SourceHash, Timed: t.Spec.Timed,
		// A check's spec is the public one (no hidden checks or runs);
		// a spec with none of them is the same either way.
		Public: t.Spec.Hidden() == 0 && len(t.Spec.HiddenRuns) == 0}
	add := func(name string, data []byte) {
		hh := Hash(data)
		blobs[hh] = data
		job.Files = append(job.Files, File{Name: name, Hash: hh, Size: int64(len(data))})
	}
	add(t.SourceName, t.Source)
	for _, f := range t.Files {
		add(f.Name, f.Data)
	}
	return job, blobs, nil
}

func (rt remoteToolchain) Build(ctx context.Context, t *grade.Task, slot int) *grade.Built {
	if !rt.r.Hub.Builders() {
		return rt.local.Build(ctx, t, slot)
	}
	job, blobs, err := rt.r.job(KindBuild, t)
	if err != nil {
		return &grade.Built{Err: err}
	}
	res, err := rt.r.Hub.Do(ctx, "", job, blobs, nil, 0)
	if errors.Is(err, ErrNoWorker) {
		return rt.local.Build(ctx, t, slot)
	}
	if err == nil && res.Err != "" {
		err = fmt.Errorf("build %s on a build node: %s", t.Exercise.ID, res.Err)
	}
	if err != nil {
		return &grade.Built{Err: err}
	}
	if len(res.Failed) > 0 || len(res.Prog) == 0 {
		return &grade.Built{Failed: res.Failed, Took: res.Took}
	}
	p := filepath.Join(rt.r.Progs, Hash(res.Prog))
	if _, err := os.Stat(p); err != nil {
		if err := os.MkdirAll(rt.r.Progs, 0o700); err != nil {
			return &grade.Built{Err: err}
		}
		if err := safefs.WriteAtomic(p, res.Prog, 0o700); err != nil {
			return &grade.Built{Err: fmt.Errorf("keep the program built on a node: %w", err)}
		}
	}
	return &grade.Built{Prog: p, Took: res.Took}
}

func (rt remoteToolchain) Run(ctx context.Context, t *grade.Task, b *grade.Built, device string, slot int) (*grade.Ran, error) {
	if !OnNode(device) {
		return rt.local.Run(ctx, t, b, device, slot)
	}
	job, blobs, err := rt.r.job(KindRun, t)
	if err != nil {
		return nil, err
	}
	prog, err := os.ReadFile(b.Prog)
	if err != nil {
		return nil, fmt.Errorf("run %s on a node: its program: %w", t.Exercise.ID, err)
	}
	h := Hash(prog)
	blobs[h] = prog
	job.Prog = &File{Name: "prog", Hash: h, Size: int64(len(prog)), Mode: 0o755}
	res, err := rt.r.Hub.Do(ctx, device, job, blobs, nil, 0)
	if err != nil {
		return nil, err
	}
	if res.Err != "" {
		return nil, fmt.Errorf("run %s on %s: %s", t.Exercise.ID, device, res.Err)
	}
	return &grade.Ran{Results: res.Results, Output: res.Output, Took: res.Took}, nil
}

// Cells is cells with the runs on nodes' GPUs sent to the nodes: the
// workspace travels with the run and what the cell wrote comes back.
func (r *Remote) Cells(cells func(ws string, slot int) runner.Runner) func(ws string, slot int) runner.Runner {
	return func(ws string, slot int) runner.Runner {
		return remoteCells{r: r, ws: ws, local: cells(ws, slot)}
	}
}

type remoteCells struct {
	r     *Remote
	ws    string
	local runner.Runner
}

func (rc remoteCells) Run(ctx context.Context, spec runner.Spec, out io.Writer) (*runner.Result, error) {
	dev := ""
	for _, v := range spec.Env {
		if d, ok := strings.CutPrefix(v, "CUDA_VISIBLE_DEVICES="); ok {
			dev = d // the last one is the queue's
		}
	}
	if !OnNode(dev) {
		return rc.local.Run(ctx, spec, out)
	}
	files, blobs, err := Snapshot(rc.ws)
	if errors.Is(err, ErrTooBig) {
		return nil, fmt.Errorf("class: the lesson's workspace holds more than a run on a GPU node carries (%d files, %d MiB): Restart the page to empty it", MaxFiles, MaxBytes>>20)
	}
	if err != nil {
		return nil, err
	}
	// The server's own environment stays here; what the page set for
	// the cell travels, its workspace named as the node's.
	own := map[string]bool{}
	for _, v := range os.Environ() {
		own[v] = true
	}
	var env []string
	for _, v := range spec.Env {
		if own[v] || strings.HasPrefix(v, "PATH=") || strings.HasPrefix(v, "CUDA_VISIBLE_DEVICES=") {
			continue
		}
		env = append(env, strings.ReplaceAll(v, rc.ws, WorkspaceVar))
	}
	var argv []string
	for _, a := range spec.Argv {
		argv = append(argv, strings.ReplaceAll(a, rc.ws, WorkspaceVar))
	}
	job := &Job{Kind: KindCell, Workspace: Hash([]byte(rc.ws))[:32], Files: files, Argv: argv, Env: env, Timeout: spec.Timeout, MaxOutput: spec.MaxOutput}
	res, err := rc.r.Hub.Do(ctx, dev, job, blobs, out, spec.MaxOutput)
	if err != nil {
		return nil, err
	}
	if res.Err != "" {
		return nil, fmt.Errorf("class: the GPU node could not run the cell: %s", res.Err)
	}
	if err := Apply(rc.ws, res.Changed, res.Removed); err != nil {
		return nil, fmt.Errorf("class: the files the cell wrote on the node: %w", err)
	}
	if res.Truncated {
		fmt.Fprintf(out, "(the cell wrote more than comes back from a GPU node: its first %d MiB are kept)\n", MaxBytes>>20)
	}
	e := res.Exit
	return &runner.Result{ExitCode: e.Code, Signal: sigOf(e.Signal), TimedOut: e.TimedOut, Truncated: e.Truncated, Canceled: e.Canceled, OutOfMemory: e.OutOfMemory, Duration: e.Duration}, nil
}

func sigOf(n int) syscall.Signal { return syscall.Signal(n) }
