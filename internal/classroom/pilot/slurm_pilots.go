package pilot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/classroom/queue"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/rig"
	"github.com/cudalessons/lessons/internal/slurm"
	"github.com/cudalessons/lessons/internal/workspace"
)

// SlurmOptions are serve --class's settings for runs on a Slurm
// cluster's nodes (pilot jobs). Options are grade --slurm's, by the same
// flag names (partition, account, qos, time, sbatch-arg).
type SlurmOptions struct {
	Nodes, GPUsPerNode, NodeCPUs int
	Builders, BuildCPUs          int
	URL, Exe, Capability         string
	Env                          []string
	Only                         bool
	Options                      slurm.Options
	// Cluster is Slurm's commands (slurm.Command; tests fake it).
	Cluster slurm.Exec
}

// On says whether any node is asked for.
func (s *SlurmOptions) On() bool { return s.Nodes > 0 || s.Builders > 0 }

// Pilots is the class server's side of its pilot jobs, wired into the
// class before it opens (Remote: the toolchain, the cells) and after
// (Start: the queue, the handler, the fleet).
type Pilots struct {
	Remote *Remote
	s      *SlurmOptions
	hub    *Hub
	queue  *queue.Queue
}

// Workers names the nodes' connected workers for the instructor's view
// (none without pilots).
func (p *Pilots) Workers() func() []string {
	if p == nil {
		return nil
	}
	return p.hub.Workers
}

// nodePerGPU is how many runs at once a node's GPU takes: perGPU, or
// as grade chooses for one GPU from the node's cores for each (runs
// share a GPU from 4 cores a GPU up).
func (s *SlurmOptions) nodePerGPU(perGPU int) int {
	if perGPU > 0 {
		return perGPU
	}
	if c := s.NodeCPUs / max(s.GPUsPerNode, 1); c >= 4 {
		return min(16, c)
	}
	return 1
}

// Prepare readies the pilots of a class (the course at courseRoot, its
// solutions, the server's private folder), perGPU runs at once on each
// node's GPU (0: chosen from the node's cores): refused, with what to
// give, where the options name no server URL or a bad Slurm option.
func (s *SlurmOptions) Prepare(courseRoot string, solutions []string, private string, perGPU int) (*Pilots, error) {
	per := s.nodePerGPU(perGPU)
	if s.Options.Time == "" {
		s.Options.Time = "8:00:00" // a pilot that ends is submitted again
	}
	if err := s.Options.Check(); err != nil {
		return nil, failure.Usagef("serve --class with Slurm nodes: %v (flags, or [grade.slurm] in course.toml)", err)
	}
	if !strings.HasPrefix(s.URL, "https://") && !strings.HasPrefix(s.URL, "http://") {
		return nil, failure.Usagef("serve --class --slurm-nodes needs --slurm-url, the server's URL as the nodes reach it (https://login1.uni.example:8443)")
	}
	for _, e := range s.Env {
		if k, _, ok := strings.Cut(e, "="); !ok || k == "" || strings.ContainsAny(k, " \t\n'\"$`\\;=") {
			return nil, failure.Usagef("serve --class --slurm-env %q: give NAME=VALUE", e)
		}
	}
	p := &Pilots{s: s}
	p.hub = NewHub(Config{Per: per, Builds: s.BuildCPUs,
		Join:  func(d []string) { Join(p.queue, per)(d) },
		Leave: func(d []string) { Leave(p.queue)(d) }})
	p.Remote = &Remote{Hub: p.hub, Course: courseRoot, Solutions: solutions, Progs: filepath.Join(private, "progs")}
	return p, nil
}

// Start submits the pilots, their GPUs joining and leaving q; the
// handler serves their workers beside the class. stop cancels them; note
// says where their logs are.
func (p *Pilots) Start(ctx context.Context, q *queue.Queue, class http.Handler, private string, local, env []string, log io.Writer) (http.Handler, func(), string, error) {
	p.queue = q
	if p.s.Only {
		for _, d := range append([]string{"0"}, local...) {
			p.queue.DropDevice(d)
		}
	}
	exe := p.s.Exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, nil, "", err
		}
	}
	cluster := p.s.Cluster
	if cluster == nil {
		cluster = slurm.Command
	}
	f := &Fleet{Hub: p.hub, Cluster: slurm.Cluster{Exec: cluster}, Options: p.s.Options,
		Nodes: p.s.Nodes, GPUsPerNode: p.s.GPUsPerNode, NodeCPUs: p.s.NodeCPUs, Builders: p.s.Builders, BuildCPUs: p.s.BuildCPUs,
		Dir: filepath.Join(private, "slurm"), Exe: exe, URL: strings.TrimSuffix(p.s.URL, "/"), Env: append(env, p.s.Env...), Log: log}
	if err := f.Start(ctx); err != nil {
		return nil, nil, "", err
	}
	p.hub.Start(ctx)
	go f.Watch(ctx, 30*time.Second)
	note := fmt.Sprintf("Submitted %d GPU node pilot(s) and %d build node pilot(s) (logs in %s); runs go to the nodes as their workers connect", p.s.Nodes, p.s.Builders, filepath.Join(f.Dir, "logs"))
	mux := http.NewServeMux()
	mux.Handle(Path, p.hub)
	mux.Handle("/", class)
	stop := func() {
		c, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := f.Stop(c); err != nil {
			fmt.Fprintf(log, "serve --class: cancel the pilots: %v (scancel them: %v)\n", err, f.Jobs())
		}
	}
	return mux, stop, note, nil
}

// Gpuless is the class's rig on a server without a GPU whose runs are
// all on the nodes (Only): it builds, when no build node is connected,
// for the nodes' GPU (Capability), and runs nothing. noGPU is why a
// grader's rig was refused here.
func (s *SlurmOptions) Gpuless(ctx context.Context, noGPU error) (*rig.Rig, error) {
	var miss *machine.Missing
	if !s.On() || !s.Only || !errors.As(noGPU, &miss) || miss.NoNVCC != nil {
		return nil, noGPU
	}
	r, err := rig.BuildNode(ctx, s.Capability, "lessons-class-")
	if errors.Is(err, rig.ErrCapability) {
		return nil, failure.Usagef("this machine has no GPU (%v): with every run on the nodes (--slurm-only) it builds for theirs; give their compute capability, --slurm-gpu-capability 9.0 for an H100", miss.NoGPU)
	}
	return r, err
}

// CapabilityVar tells a build node which GPU to build for (the class
// server's, as the run nodes' have).
const CapabilityVar = "LESSONS_PILOT_CAPABILITY"

// WorkerOptions are what lessons pilot is given on its node.
type WorkerOptions struct {
	URL, Role, Dir, SecretFile string
}

// RunWorker is a pilot job's worker on its node (lessons pilot): it
// connects to the class server, takes runs for this node's GPUs or
// builds, runs each in the grading sandbox and sends the results back,
// until ctx ends. log gets its lines.
func RunWorker(ctx context.Context, o WorkerOptions, log io.Writer) error {
	secret, err := ReadSecret(o.SecretFile)
	if err != nil {
		return err
	}
	node, gpus, r, err := nodeExec(ctx, o.Role, os.Getenv(CapabilityVar), log)
	if err != nil {
		return err
	}
	defer r.Close()
	host, _ := os.Hostname()
	w := &Worker{URL: strings.TrimSuffix(o.URL, "/"), Secret: secret, Role: o.Role, GPUs: gpus, Host: host, Dir: o.Dir, Exec: node, Log: log}
	return w.Run(ctx)
}

// nodeExec assembles this node's executor on its rig (a run node's, or a
// build node's building for capability, the server's GPU), as serve
// --class's on one machine.
func nodeExec(ctx context.Context, role, capability string, log io.Writer) (*Node, []string, *rig.Rig, error) {
	var r *rig.Rig
	var err error
	switch role {
	case RoleGPU:
		r, err = rig.RunNode(ctx, "pilot", "lessons-pilot-")
	case RoleBuild:
		r, err = rig.BuildNode(ctx, capability, "lessons-pilot-")
		if errors.Is(err, rig.ErrCapability) {
			err = fmt.Errorf("pilot: $%s names no GPU to build for (%q)", CapabilityVar, capability)
		}
	default:
		err = failure.Usagef("pilot: role %q is gpu or build", role)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	comp := r.Machine.Compiler()
	choice := grade.Choose(0, 0, 1, 1, "the timed")
	var gpus []string
	if role == RoleGPU {
		gpus = r.Devices()
		fmt.Fprintf(log, "lessons pilot: outside witness %s\n", r.Witness)
	}
	return &Node{
		Env:       workspace.ClassEnv(comp, machine.QueuesEnv(choice.Queues)),
		Cells:     r.Cells(rig.ToolRoots(comp.Path), ""),
		Toolchain: choice.Pipeline(r.Toolkit, r.Sandbox),
	}, gpus, r, nil
}
