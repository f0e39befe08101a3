package pilot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/runner"
)

// Node is a worker node's executor: a cell in the class's sandbox with
// this node's toolkit, an exercise built and run by grade's pipeline,
// as the server would have done them.
type Node struct {
	// Env is a workspace's notebook environment on this node (the nvcc
	// wrapper, the toolkit's variables), as the server's Config.Env.
	Env func(ws string) (notebook.Env, error)
	// Cells is the sandbox's runner of a cell on a run slot.
	Cells func(ws string, slot int) runner.Runner
	// Toolchain builds and runs exercises (grade's, in the sandbox).
	Toolchain grade.Toolchain

	mu      sync.Mutex
	courses map[string]*course.Course
}

var _ Executor = (*Node)(nil)

// Cell runs a cell's command in ws on the job's GPU. The environment is
// this node's (its toolkit, its PATH) with what the page set for the
// cell, the server's workspace named as this node's.
func (n *Node) Cell(ctx context.Context, job *Job, ws string, out io.Writer) (Exit, error) {
	env, err := n.Env(ws)
	if err != nil {
		return Exit{}, err
	}
	// The pilot's own environment stays the pilot's: the cell's is
	// built for it.
	if env.Base == nil {
		env.Base = runner.HostEnv(nil)
	}
	vars := notebook.CellEnv(env)
	for _, v := range job.Env {
		if strings.HasPrefix(v, "PATH=") || strings.HasPrefix(v, "CUDA_VISIBLE_DEVICES=") || strings.HasPrefix(v, "LD_PRELOAD=") {
			continue
		}
		vars = append(vars, strings.ReplaceAll(v, WorkspaceVar, ws))
	}
	vars = append(append(vars, env.Vars...), "CUDA_VISIBLE_DEVICES="+job.Device)
	var argv []string
	for _, a := range job.Argv {
		argv = append(argv, strings.ReplaceAll(a, WorkspaceVar, ws))
	}
	if len(argv) == 0 {
		return Exit{}, errors.New("class node: a cell without a command")
	}
	res, err := n.Cells(ws, job.Slot).Run(ctx, runner.Spec{Argv: argv, Dir: ws, Env: vars, Timeout: job.Timeout, MaxOutput: job.MaxOutput}, out)
	if err != nil {
		return Exit{}, err
	}
	return Exit{Code: res.ExitCode, Signal: int(res.Signal), TimedOut: res.TimedOut, Truncated: res.Truncated, Canceled: res.Canceled, OutOfMemory: res.OutOfMemory, Duration: res.Duration}, nil
}

// task is the job's grade task, read from the course as the server read
// it: the same spec, the hidden checks left out for a check.
func (n *Node) task(job *Job, root string, files []FileData) (*grade.Task, error) {
	n.mu.Lock()
	if n.courses == nil {
		n.courses = map[string]*course.Course{}
	}
	c := n.courses[root]
	n.mu.Unlock()
	if c == nil {
		var err error
		if c, err = course.Load(root); err != nil {
			return nil, fmt.Errorf("class node: the course the server sent: %w", err)
		}
		n.mu.Lock()
		n.courses[root] = c
		n.mu.Unlock()
	}
	x, err := c.Exercise(job.Exercise)
	if err != nil {
		return nil, err
	}
	spec, err := exercise.LoadSpec(c, x)
	if err != nil {
		return nil, err
	}
	if job.Public {
		spec = spec.Public()
	}
	if len(files) == 0 {
		return nil, errors.New("class node: an exercise without its file")
	}
	t := &grade.Task{Student: job.Student, Exercise: x, Spec: spec, Source: files[0].Data, SourceName: files[0].Name, SourceHash: job.SourceHash}
	for _, f := range files[1:] {
		t.Files = append(t.Files, grade.File{Name: f.Name, Data: f.Data})
	}
	return t, nil
}

// Build builds the job's exercise; the program comes back in the result.
func (n *Node) Build(ctx context.Context, job *Job, root string, files []FileData) (*Result, error) {
	t, err := n.task(job, root, files)
	if err != nil {
		return nil, err
	}
	b := n.Toolchain.Build(ctx, t, job.Slot)
	if b.Err != nil {
		return nil, b.Err
	}
	if b.Prog == "" {
		return &Result{Failed: b.Failed, Took: b.Took}, nil
	}
	prog, err := os.ReadFile(b.Prog)
	if err != nil {
		return nil, fmt.Errorf("class node: the program built: %w", err)
	}
	return &Result{Prog: prog, Took: b.Took}, nil
}

// Run runs prog, the job's program, on the job's GPU and judges it.
func (n *Node) Run(ctx context.Context, job *Job, root string, files []FileData, prog string) (*Result, error) {
	t, err := n.task(job, root, files)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	ran, err := n.Toolchain.Run(ctx, t, &grade.Built{Prog: prog}, job.Device, job.Slot)
	if err != nil {
		return nil, err
	}
	if ran.Took == 0 {
		ran.Took = time.Since(start)
	}
	return &Result{Results: ran.Results, Output: ran.Output, Took: ran.Took}, nil
}
