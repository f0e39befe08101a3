package classcmd

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

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/classroom"
	"github.com/cudalessons/lessons/internal/classroom/pilot"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/runner"
	"github.com/cudalessons/lessons/internal/sandbox"
	"github.com/cudalessons/lessons/internal/slurm"
	"github.com/cudalessons/lessons/internal/workspace"
)

// slurmFlags are serve --class's flags for runs on a Slurm cluster's
// nodes (pilot jobs).
type slurmFlags struct {
	nodes, gpusPerNode, nodeCPUs int
	builders, buildCPUs          int
	url, exe, capability         string
	env                          []string
	only                         bool
	opts                         slurm.Options
}

func (s *slurmFlags) add(fl *pflag.FlagSet) {
	fl.IntVar(&s.nodes, "slurm-nodes", 0, "send runs to `N` GPU nodes through Slurm: a pilot job on each, connecting back to --slurm-url (the README's \"Beyond one machine\")")
	fl.IntVar(&s.gpusPerNode, "slurm-gpus-per-node", 4, "the GPUs each GPU node's pilot asks for (gres gpu:N)")
	fl.IntVar(&s.nodeCPUs, "slurm-cpus-per-node", 16, "the cores each GPU node's pilot asks for (and, without --per-gpu, its runs at once on each GPU: from 4 cores a GPU, one a core)")
	fl.IntVar(&s.builders, "slurm-build-nodes", 0, "build on `N` CPU nodes (pilot jobs) instead of here")
	fl.IntVar(&s.buildCPUs, "slurm-build-cpus", 16, "the cores each build node's pilot asks for (its builds at once)")
	fl.StringVar(&s.url, "slurm-url", "", "the class server's `URL` as the nodes reach it (https://login1.uni.example:8443)")
	fl.StringVar(&s.exe, "slurm-exe", "", "the lessons binary as the nodes see it (default: this one's path)")
	fl.BoolVar(&s.only, "slurm-only", false, "run nothing on this machine's GPU: every run waits for a node")
	fl.StringVar(&s.capability, "slurm-gpu-capability", "", "the nodes' GPUs' compute `X.Y` (9.0 for an H100), for a server without a GPU (with --slurm-only): it builds for them")
	fl.StringArrayVar(&s.env, "slurm-env", nil, "`NAME=VALUE` set in each pilot job (LESSONS_SANDBOX_READ=/opt/cuda), repeatable")
	fl.StringVar(&s.opts.RunPartition, "slurm-partition", "", "the GPU nodes' `PARTITION`")
	fl.StringVar(&s.opts.BuildPartition, "slurm-build-partition", "", "the build nodes' `PARTITION`")
	fl.StringVar(&s.opts.Account, "slurm-account", "", "sbatch --account")
	fl.StringVar(&s.opts.QOS, "slurm-qos", "", "sbatch --qos")
	fl.StringVar(&s.opts.Time, "slurm-time", "8:00:00", "each pilot's time limit (Slurm's words); a pilot that ends is submitted again")
	fl.StringArrayVar(&s.opts.Extra, "slurm-sbatch-arg", nil, "more sbatch arguments for the pilots (--constraint=h100), repeatable")
}

func (s *slurmFlags) on() bool { return s.nodes > 0 || s.builders > 0 }

// pilots is the class's side of its pilot jobs, wired into the class
// before it opens (the toolchain, the cells) and after (the queue, the
// handler, the fleet).
type pilots struct {
	s      *slurmFlags
	hub    *pilot.Hub
	remote *classroom.Remote
	queue  *classroom.Queue
}

// workers names the nodes' connected workers for the instructor's view
// (none without pilots).
func (p *pilots) workers() func() []string {
	if p == nil {
		return nil
	}
	return p.hub.Workers
}

// nodePerGPU is how many runs at once a node's GPU takes: --per-gpu, or
// as grade chooses for one GPU from the node's cores for each (runs
// share a GPU from 4 cores a GPU up).
func (s *slurmFlags) nodePerGPU(perGPU int) int {
	if perGPU > 0 {
		return perGPU
	}
	if c := s.nodeCPUs / max(s.gpusPerNode, 1); c >= 4 {
		return min(16, c)
	}
	return 1
}

func (s *slurmFlags) prepare(courseRoot string, solutions []string, classDir string, perGPU int) (*pilots, error) {
	per := s.nodePerGPU(perGPU)
	if err := s.opts.Check(); err != nil {
		return nil, fmt.Errorf("serve --class --slurm-*: %w", err)
	}
	if !strings.HasPrefix(s.url, "https://") && !strings.HasPrefix(s.url, "http://") {
		return nil, errors.New("serve --class --slurm-nodes needs --slurm-url, the server's URL as the nodes reach it (https://login1.uni.example:8443)")
	}
	for _, e := range s.env {
		if k, _, ok := strings.Cut(e, "="); !ok || k == "" || strings.ContainsAny(k, " \t\n'\"$`\\;=") {
			return nil, fmt.Errorf("serve --class --slurm-env %q: give NAME=VALUE", e)
		}
	}
	p := &pilots{s: s}
	p.hub = pilot.NewHub(pilot.Config{Per: per, Builds: s.buildCPUs,
		Join:  func(d []string) { classroom.Join(p.queue, per)(d) },
		Leave: func(d []string) { classroom.Leave(p.queue)(d) }})
	p.remote = &classroom.Remote{Hub: p.hub, Course: courseRoot, Solutions: solutions, Progs: filepath.Join(classDir, classroom.PrivateDir, "progs")}
	return p, nil
}

// start submits the pilots; the handler serves their workers beside the
// class. stop cancels them.
func (p *pilots) start(ctx context.Context, cls *classroom.Class, classDir string, local, env []string, out io.Writer) (http.Handler, func(), error) {
	p.queue = cls.Queue()
	if p.s.only {
		for _, d := range append([]string{"0"}, local...) {
			p.queue.DropDevice(d)
		}
	}
	exe := p.s.exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, nil, err
		}
	}
	f := &pilot.Fleet{Hub: p.hub, Cluster: slurm.Cluster{Exec: slurm.Command}, Options: p.s.opts,
		Nodes: p.s.nodes, GPUsPerNode: p.s.gpusPerNode, NodeCPUs: p.s.nodeCPUs, Builders: p.s.builders, BuildCPUs: p.s.buildCPUs,
		Dir: filepath.Join(classDir, classroom.PrivateDir, "slurm"), Exe: exe, URL: strings.TrimSuffix(p.s.url, "/"), Env: append(env, p.s.env...), Log: out}
	if err := f.Start(ctx); err != nil {
		return nil, nil, err
	}
	p.hub.Start(ctx)
	go f.Watch(ctx, 30*time.Second)
	fmt.Fprintf(out, "Submitted %d GPU node pilot(s) and %d build node pilot(s) (logs in %s); runs go to the nodes as their workers connect\n", p.s.nodes, p.s.builders, filepath.Join(f.Dir, "logs"))
	mux := http.NewServeMux()
	mux.Handle(pilot.Path, p.hub)
	mux.Handle("/", cls)
	stop := func() {
		c, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := f.Stop(c); err != nil {
			fmt.Fprintf(out, "serve --class: cancel the pilots: %v (scancel them: %v)\n", err, f.Jobs())
		}
	}
	return mux, stop, nil
}

// cellEnv is a lesson workspace's notebook environment on machine m:
// the nvcc wrapper in the workspace, the real nvcc and the GPU's
// hardware queues.
func cellEnv(comp buildcache.Compiler, vars []string) func(ws string) (notebook.Env, error) {
	return func(ws string) (notebook.Env, error) {
		if err := workspace.MakeWrapper(ws); err != nil {
			return notebook.Env{}, err
		}
		return notebook.Env{Runner: runner.Exec{}, Wrapper: workspace.WrapperDir(ws), Vars: append([]string{
			"LESSONS_REAL_NVCC=" + comp.Path, "LESSONS_NVCC_VERSION=" + comp.Version, "LESSONS_ARCH=" + comp.Arch,
		}, vars...)}, nil
	}
}

// capabilityVar tells a build node which GPU to build for (the class
// server's, as the run nodes' have).
const capabilityVar = "LESSONS_PILOT_CAPABILITY"

// Pilot is lessons pilot: a pilot job's worker on its node.
func Pilot(out io.Writer) *cobra.Command {
	var url, role, dir, secretFile string
	cmd := &cobra.Command{
		Use:    "pilot",
		Short:  "(Slurm) A class server's pilot on a node: takes the class's runs or builds",
		Hidden: true,
		Long: `The worker a class server's pilot job runs on a node (serve --class
--slurm-nodes): it connects to --url with its job's secret (--secret-file, read and removed),
takes runs for this node's GPUs (CUDA_VISIBLE_DEVICES as Slurm sets it) or
builds, runs each in the grading sandbox and sends the results back.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			secret, err := pilot.ReadSecret(secretFile)
			if err != nil {
				return err
			}
			node, gpus, cleanup, err := nodeExec(cmd.Context(), role, out)
			if err != nil {
				return err
			}
			defer cleanup()
			host, _ := os.Hostname()
			w := &pilot.Worker{URL: strings.TrimSuffix(url, "/"), Secret: secret, Role: role, GPUs: gpus, Host: host, Dir: dir, Exec: node, Log: out}
			return w.Run(cmd.Context())
		},
	}
	cmd.Flags().StringVar(&url, "url", "", "the class server's `URL`")
	cmd.Flags().StringVar(&role, "role", pilot.RoleGPU, "gpu (runs) or build")
	cmd.Flags().StringVar(&dir, "dir", "", "this node's scratch `DIR` (the files' cache, the workspaces)")
	cmd.Flags().StringVar(&secretFile, "secret-file", "", "the `FILE` of the job's secret (removed once read)")
	cmd.MarkFlagRequired("url")
	cmd.MarkFlagRequired("dir")
	cmd.MarkFlagRequired("secret-file")
	return cmd
}

// nodeExec assembles this node's executor: its toolkit and sandbox, as
// serve --class's on one machine; a build node builds for the GPU the
// server names.
func nodeExec(ctx context.Context, role string, log io.Writer) (*classroom.Node, []string, func(), error) {
	var m *machine.Machine
	var err error
	var gpus []string
	switch role {
	case pilot.RoleGPU:
		if m, err = machine.Need(ctx, "pilot"); err != nil {
			return nil, nil, nil, err
		}
		gpus = machine.Devices(len(m.Info.Devices))
	case pilot.RoleBuild:
		if m, err = machine.Find(ctx, ""); err != nil {
			return nil, nil, nil, fmt.Errorf("pilot: a build node needs nvcc: %w", err)
		}
		var dev gpu.Device
		if _, err := fmt.Sscanf(os.Getenv(capabilityVar), "%d.%d", &dev.Major, &dev.Minor); err != nil {
			return nil, nil, nil, fmt.Errorf("pilot: $%s names no GPU to build for (%q)", capabilityVar, os.Getenv(capabilityVar))
		}
		dev.Name = "the GPU nodes' GPU"
		m.Info, m.GPUErr = &gpu.Info{Devices: []gpu.Device{dev}}, nil
	default:
		return nil, nil, nil, fmt.Errorf("pilot: role %q is gpu or build", role)
	}
	tk := exercise.NewToolkit(m.Compiler(), m.Cache)
	closeWitness := func() {}
	if role == pilot.RoleGPU {
		tk.Driver = exercise.DriverWatcher()
		if _, err := tk.StatsLibrary(ctx); err != nil {
			return nil, nil, nil, err
		}
		var witness string
		witness, closeWitness = tk.WatchRuns()
		fmt.Fprintf(log, "lessons pilot: outside witness %s\n", witness)
	}
	sb, err := exercise.TempSandbox("lessons-pilot-")
	if err != nil {
		closeWitness()
		return nil, nil, nil, err
	}
	var cg *sandbox.Cgroups
	if os.Getenv("LESSONS_SANDBOX_CGROUPS") != "off" {
		if cg, err = sandbox.OpenCgroups(); err != nil {
			cg = nil
		}
	}
	cleanup := func() {
		closeWitness()
		sb.Close()
		if cg != nil {
			cg.Close()
		}
	}
	comp := m.Compiler()
	choice := grade.Choose(0, 0, 1, 1, "the timed")
	return &classroom.Node{
		Env:       cellEnv(comp, machine.QueuesEnv(choice.Queues)),
		Cells:     classroom.SandboxCells(toolRoots(comp.Path), "", cg),
		Toolchain: choice.Pipeline(tk, sb),
	}, gpus, cleanup, nil
}

// capability is the server's GPU's compute capability (9.0), which the
// build nodes build for.
func capability(m *machine.Machine) string {
	if m.GPUErr != nil || m.Info == nil || len(m.Info.Devices) == 0 {
		return ""
	}
	d := m.Info.Devices[0]
	return fmt.Sprintf("%d.%d", d.Major, d.Minor)
}

// gpuless is the class's toolchain on a server without a GPU whose runs
// are all on the nodes (--slurm-only): it builds, when no build node is
// connected, for the nodes' GPU (--slurm-gpu-capability), and runs
// nothing. noGPU is why NewLocal refused this machine.
func (s *slurmFlags) gpuless(m *machine.Machine, jobs, perGPU int, noGPU error) (*grade.Local, error) {
	if !s.on() || !s.only || m.GPUErr == nil {
		return nil, noGPU
	}
	var dev gpu.Device
	if _, err := fmt.Sscanf(s.capability, "%d.%d", &dev.Major, &dev.Minor); err != nil {
		return nil, fmt.Errorf("this machine has no GPU (%v): with every run on the nodes (--slurm-only) it builds for theirs; give their compute capability, --slurm-gpu-capability 9.0 for an H100", m.GPUErr)
	}
	dev.Name = "the nodes' GPU"
	m.Info, m.GPUErr = &gpu.Info{Devices: []gpu.Device{dev}}, nil
	sb, err := exercise.TempSandbox("lessons-class-")
	if err != nil {
		return nil, err
	}
	choice := grade.Choose(perGPU, 0, 1, 1, "the timed")
	return &grade.Local{Toolchain: choice.Pipeline(exercise.NewToolkit(m.Compiler(), m.Cache), sb), Sandbox: sb, Choice: choice,
		Jobs: min(max(jobs, 1), exercise.MaxSlots)}, nil
}
