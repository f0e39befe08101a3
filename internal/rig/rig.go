package rig

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/sandbox"
)

// Rig is where code runs for one role: the machine, the toolkit that
// builds and judges with it and, for a grader and the nodes, the
// grading sandbox. Close it.
type Rig struct {
	Machine *machine.Machine
	Toolkit *exercise.Toolkit
	// Sandbox builds and runs untrusted files (a grader's, a node's);
	// nil for a student's or an author's rig, whose runs are their own.
	Sandbox *exercise.Sandbox
	// Witness says in a line whether runs' records are compared with the
	// kernel's counts of their CUDA calls (a grader's and a run node's
	// rig; "" otherwise).
	Witness string

	mu      sync.Mutex
	cgroups *sandbox.Cgroups // the cells' groups, opened on first ask
	noGroup string           // why there are none
	opened  bool
	closers []func()
}

// Student is the rig of a student's command named cmd (check, watch),
// which its errors name: nvcc and a GPU, the toolkit with the driver's
// view of each run. Without either the error is a *failure.Tool that
// wraps a *machine.Missing (what was found), so that check can still do
// what needs less.
func Student(ctx context.Context, cmd string) (*Rig, error) {
	m, err := machine.Need(ctx, cmd)
	if err != nil {
		return nil, err
	}
	return &Rig{Machine: m, Toolkit: exercise.ToolkitFor(m)}, nil
}

// Page is the rig of the course's pages (lessons serve): nvcc is
// needed, a GPU is not (Machine.GPUErr then says why: the cells are
// compiled only).
func Page(ctx context.Context) (*Rig, error) {
	m, err := machine.Find(ctx, "")
	if err != nil {
		return nil, err
	}
	return &Rig{Machine: m, Toolkit: exercise.ToolkitFor(m)}, nil
}

// Lesson is the machine a lesson's cells run on (lessons run), nvcc
// found on the PATH past wrapperDir, the workspace's nvcc wrapper.
func Lesson(ctx context.Context, wrapperDir string) (*machine.Machine, error) {
	m, err := machine.Find(ctx, wrapperDir)
	if err != nil {
		return nil, failure.Toolf("lessons run needs nvcc to build the lesson's programs: %w", err)
	}
	return m, nil
}

// Author is the rig of lessons verify: nvcc and, unless compileOnly, a
// GPU; what is missing is a *failure.Tool that says what to do.
func Author(ctx context.Context, compileOnly bool) (*Rig, error) {
	m, err := machine.Find(ctx, "")
	if err != nil {
		return nil, failure.Toolf("lessons verify needs nvcc: %w", err)
	}
	if m.GPUErr != nil && !compileOnly {
		return nil, failure.Toolf("lessons verify runs the course, which needs a GPU (%v); lessons verify --compile-only builds it without one", m.GPUErr)
	}
	return &Rig{Machine: m, Toolkit: exercise.ToolkitFor(m)}, nil
}

// Look is what this machine has, for a command that only reports it (a
// Slurm task's preflight): the machine as found, nvcc's error if none.
func Look(ctx context.Context) (*machine.Machine, error) {
	return machine.Find(ctx, "")
}

// Grader is the rig of a command that grades others' files (grade, the
// class server), named cmd in its errors: nvcc and a GPU, the toolkit
// with the driver's view and the outside witness of each run, and a
// sandbox in a temporary folder named after prefix.
func Grader(ctx context.Context, cmd, prefix string) (*Rig, error) {
	m, err := machine.Need(ctx, cmd)
	if err != nil {
		return nil, err
	}
	return (&Rig{Machine: m, Toolkit: exercise.ToolkitFor(m)}).watched(prefix)
}

// BuildNode is the rig of a machine that builds for another's GPU (a
// Slurm build task, a class pilot's build node, a class server whose
// runs are all on the nodes): nvcc, the GPU taken to be of compute
// capability ("9.0"), and a sandbox; it runs nothing.
func BuildNode(ctx context.Context, capability, prefix string) (*Rig, error) {
	m, err := machine.Find(ctx, "")
	if err != nil {
		return nil, failure.Toolf("a build node needs nvcc: %w", err)
	}
	if err := BuildFor(m, capability); err != nil {
		return nil, err
	}
	r := &Rig{Machine: m, Toolkit: exercise.NewToolkit(m.Compiler(), m.Cache)}
	if err := r.sandbox(prefix); err != nil {
		return nil, err
	}
	return r, nil
}

// RunNode is the rig of a node that runs others' programs on its GPUs (a
// Slurm run task, a class pilot's GPU node), named cmd in its errors:
// nvcc and a GPU, the toolkit with the driver's view and the outside
// witness, the statistics library built before the first run, and a
// sandbox.
func RunNode(ctx context.Context, cmd, prefix string) (*Rig, error) {
	m, err := machine.Need(ctx, cmd)
	if err != nil {
		return nil, err
	}
	tk := exercise.NewToolkit(m.Compiler(), m.Cache)
	tk.Driver = exercise.DriverWatcher()
	if _, err := tk.StatsLibrary(ctx); err != nil {
		return nil, err
	}
	return (&Rig{Machine: m, Toolkit: tk}).watched(prefix)
}

// watched gives a rig that runs others' programs the outside witness and
// a sandbox in a temporary folder named after prefix, closing it on
// either's error.
func (r *Rig) watched(prefix string) (*Rig, error) {
	if err := r.watch(); err != nil {
		r.Close()
		return nil, err
	}
	if err := r.sandbox(prefix); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// watch gives the rig's runs the outside witness where this process may
// load BPF; Witness says whether it does, and why not. Where
// LESSONS_WITNESS=require and it cannot, the error is a *failure.Tool.
func (r *Rig) watch() error {
	var done func()
	var err error
	r.Witness, done, err = r.Toolkit.WatchRuns()
	r.closers = append(r.closers, done)
	if err != nil {
		return &failure.Tool{Err: err}
	}
	return nil
}

func (r *Rig) sandbox(prefix string) error {
	sb, err := exercise.TempSandbox(prefix)
	if err != nil {
		return err
	}
	if why := writesOutside(sb.OwnUsers()); why != "" {
		sb.Close()
		return &failure.Tool{Err: errors.New(why)}
	}
	r.Sandbox = sb
	r.closers = append(r.closers, sb.Close)
	return nil
}

// landlockABI is the kernel's Landlock ABI (a seam for tests).
var landlockABI = sandbox.LandlockABI

// writesOutside says why a grader's sandbox cannot be used: with no
// Landlock, a program that runs as the grader's own user (not a user of
// its own per worker) writes what that user can, the gradebook and the
// other submissions included (tried with lessons sandbox --landlock -1
// as nobody: a file of nobody's beside its folder rewritten). "" when
// Landlock holds it, or when it runs as a user of its own.
// LESSONS_SANDBOX_SHARED_USER=accept starts it all the same, where the
// grader cannot be root (a cluster's old kernel).
func writesOutside(ownUsers bool) string {
	if ownUsers || landlockABI() > 0 || os.Getenv("LESSONS_SANDBOX_SHARED_USER") == "accept" {
		return ""
	}
	return "grade: this kernel has no Landlock (Linux before 5.13) and students' programs would run as the grader's own user, so each could write what that user can (the gradebook, the other submissions, a Slurm grade's results): grade as root, which gives each worker a user of its own (LESSONS_SANDBOX_USERS not off), or on Linux 5.13 or later; LESSONS_SANDBOX_SHARED_USER=accept grades all the same"
}

// Devices are the rig's GPUs as CUDA_VISIBLE_DEVICES names them (none
// without a GPU).
func (r *Rig) Devices() []string {
	if r.Machine.GPUErr != nil || r.Machine.Info == nil {
		return nil
	}
	return machine.Devices(len(r.Machine.Info.Devices))
}

// Close lets go of what the rig made outside this process's memory: the
// sandbox's scratch folders, the cgroups, the witness's probes.
func (r *Rig) Close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i]()
	}
	r.closers = nil
}

// ErrCapability is a compute capability that names no GPU.
var ErrCapability = errors.New("a GPU's compute capability is MAJOR.MINOR (9.0 for an H100)")

// BuildFor makes m build for a GPU of compute capability ("9.0")
// though it has none of its own: the one place a machine is taken to
// have another's GPU (a build node, a class server whose runs are on
// the nodes).
func BuildFor(m *machine.Machine, capability string) error {
	var dev gpu.Device
	_, err := fmt.Sscanf(capability, "%d.%d", &dev.Major, &dev.Minor)
	if err != nil || dev.Major <= 0 || dev.Minor < 0 || fmt.Sprintf("%d.%d", dev.Major, dev.Minor) != capability {
		return fmt.Errorf("build for %q: %w", capability, ErrCapability)
	}
	dev.Name = "the nodes' GPU"
	m.Info, m.GPUErr = &gpu.Info{Devices: []gpu.Device{dev}}, nil
	return nil
}

// Capability is m's first GPU's compute capability ("9.0"), what a
// build node builds for; "" without a GPU.
func Capability(m *machine.Machine) string {
	if m == nil || m.GPUErr != nil || m.Info == nil || len(m.Info.Devices) == 0 {
		return ""
	}
	d := m.Info.Devices[0]
	return fmt.Sprintf("%d.%d", d.Major, d.Minor)
}

// StatsLibrary builds the statistics library with m's toolkit, once, on
// the first call: what lessons run --timeline preloads into a traced
// cell's program.
func StatsLibrary(m *machine.Machine) func(context.Context) (string, error) {
	return exercise.ToolkitFor(m).StatsLibrary
}
