// Package classcmd is the class mode's commands (serve --class's flags,
// invite, submit), kept out of internal/cli so that cli only wires them
// in: the class server put together from the machine, grade's sandbox
// and the classroom package.
package classcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/classroom"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/python"
	"github.com/cudalessons/lessons/internal/render"
	"github.com/cudalessons/lessons/internal/roster"
	"github.com/cudalessons/lessons/internal/sandbox"
)

// Flags are serve's flags of the class mode (serve --class).
type Flags struct {
	dir, roster, cert, key  string
	proxyHeader, proxyAddr  string
	proxySecret, group      string
	instructors, hosts      []string
	maxQueued, perGPU, jobs int
	queues                  int
	diskMiB                 int64
	gpuPerHour              time.Duration
	slurm                   slurmFlags
}

// AddFlags adds the class mode's flags to serve.
func AddFlags(cmd *cobra.Command) *Flags {
	f := &Flags{}
	fl := cmd.Flags()
	fl.StringVar(&f.dir, "class", "", "serve a class: the `DIR` of its students' copies, keys, audit log and gradebook (the README's class section)")
	fl.StringVar(&f.roster, "roster", "", "the class's roster, a CSV `FILE` of id,name,email (or grade unpack's roster.csv)")
	fl.StringVar(&f.cert, "tls-cert", "", "serve the class over TLS with this certificate `FILE` (and --tls-key)")
	fl.StringVar(&f.key, "tls-key", "", "the TLS certificate's key `FILE`")
	fl.StringVar(&f.proxyHeader, "proxy-header", "", "sign students in by this `HEADER` of an authenticating proxy (X-Forwarded-User), trusted from --proxy-addr only")
	fl.StringVar(&f.proxyAddr, "proxy-addr", "127.0.0.1", "the proxy's `IP` address")
	fl.StringVar(&f.proxySecret, "proxy-secret-file", "", "a `FILE` with the secret the proxy sends as X-Lessons-Proxy-Secret (a proxy on this machine over TCP needs it, or --addr unix:PATH)")
	fl.StringVar(&f.group, "socket-group", "", "with --addr unix:PATH, the `GROUP` (the proxy's) that may open the socket")
	fl.StringSliceVar(&f.instructors, "instructor", nil, "who the proxy's header names as the instructor (repeatable)")
	fl.StringSliceVar(&f.hosts, "host", nil, "a `NAME` the class is reached by (the proxy's or the certificate's)")
	fl.Int64Var(&f.diskMiB, "disk-per-student", 2048, "the `MIB` a student's folder may hold for their cells to run (0: no limit)")
	fl.IntVar(&f.maxQueued, "max-queued", 4, "a student's runs queued or running at once")
	fl.DurationVar(&f.gpuPerHour, "gpu-per-hour", 10*time.Minute, "a student's GPU time in any hour (0: no limit)")
	fl.IntVar(&f.perGPU, "per-gpu", 0, "runs at once on each GPU (0: as grade chooses)")
	fl.IntVar(&f.jobs, "jobs", 0, "builds at once (0: the cores)")
	fl.IntVar(&f.queues, "gpu-queues", 0, "hardware work queues of each cell's and untimed exercise's program (CUDA_DEVICE_MAX_CONNECTIONS, 1 to 32; 0: 2, with which CUDA starts processes about 2.5 times as fast; 8 is CUDA's own)")
	f.slurm.add(fl)
	return f
}

// On tells whether serve was asked for the class mode.
func (f *Flags) On() bool { return f.dir != "" }

// Serve is lessons serve --class: the class server on addr until ctx
// ends (Ctrl-C).
func (f *Flags) Serve(ctx context.Context, out io.Writer, c *course.Course, addr string, timeout time.Duration) error {
	if err := machine.CheckQueues(f.queues); err != nil {
		return err
	}
	roster, err := readRoster(f.roster)
	if err != nil {
		return err
	}
	var secret string
	if f.proxySecret != "" {
		if secret, err = classroom.ReadSecret(f.proxySecret); err != nil {
			return err
		}
	}
	ln, err := classroom.Listen(addr, f.cert, f.key, f.group)
	if err != nil {
		return err
	}
	defer ln.Close()
	m, err := machine.Find(ctx, "")
	if err != nil {
		return err
	}
	perGPU := grade.Choose(f.perGPU, 0, 1, 0, "").PerDevice
	jobs := f.jobs
	if jobs == 0 {
		jobs = runtime.NumCPU()
	}
	local, err := grade.NewLocal(ctx, nil, jobs, perGPU, 0)
	if err != nil {
		local, err = f.slurm.gpuless(m, jobs, perGPU, err) // every run on the nodes (slurm.go)
	}
	if err != nil {
		return fmt.Errorf("serve --class runs the students' code in grade's sandbox on the GPUs: %w", err)
	}
	defer local.Close()
	// No tasks to choose from: untimed exercises get grade's fewer
	// hardware queues (CUDA starts faster), timed ones CUDA's own.
	choice := grade.Choose(perGPU, f.queues, 1, 1, "the timed")
	local.Toolchain = choice.Pipeline(local.Toolchain.Toolkit, local.Toolchain.Runner)
	comp := m.Compiler()
	// The cells' runs get cgroups of their own where this process may make
	// them (cores, memory, processes; every process killed at the end), as
	// grade's do; without, the rlimits hold.
	var cg *sandbox.Cgroups
	noMemory := "LESSONS_SANDBOX_CGROUPS=off"
	if os.Getenv("LESSONS_SANDBOX_CGROUPS") != "off" {
		if cg, err = sandbox.OpenCgroups(); err == nil {
			defer cg.Close()
			noMemory = ""
		} else {
			noMemory = err.Error()
		}
	}
	trace, err := openTrace()
	if err != nil {
		return err
	}
	if trace != nil {
		defer trace.Close()
	}
	// With pilots the cells build on the nodes, in each student's cache
	// there: the server's shared cache is not theirs to read.
	var shared *buildcache.Cache
	var sharedVars, read []string
	if !f.slurm.on() {
		if shared, sharedVars, read, err = sharedCache(f.dir); err != nil {
			return err
		}
	}
	roots := toolRoots(comp.Path)
	runsRead := append(append([]string(nil), sandbox.SystemRead...), roots...)
	py, noPy := sandboxPython(ctx, runsRead)
	var tc grade.Toolchain = local.Toolchain
	classDir, err := filepath.Abs(f.dir)
	if err != nil {
		return err
	}
	cells := classroom.SandboxCells(append(roots, read...), classroom.StudentsDir(classDir), cg)
	var nodes *pilots
	if f.slurm.on() {
		// Runs on the nodes' GPUs, builds on the build nodes (slurm.go).
		var solutions []string
		for _, x := range c.Exercises {
			solutions = append(solutions, x.Solution)
		}
		if nodes, err = f.slurm.prepare(c.Root, solutions, f.dir, f.perGPU); err != nil {
			return err
		}
		tc, cells = nodes.remote.Toolchain(tc), nodes.remote.Cells(cells)
	}
	// Each student's workspaces a file system of their own, where this
	// server may make them: the disk and file caps then hold during a run.
	noOwnFS := sandbox.CanOwnFS()
	if f.diskMiB <= 0 {
		noOwnFS = "--disk-per-student 0"
	}
	cls, err := classroom.Open(classroom.Config{
		Course: c, Dir: f.dir, Roster: roster,
		Site:        func() (map[string][]byte, error) { return render.Site(c) },
		Env:         cellEnv(comp, append(sharedVars, machine.QueuesEnv(choice.Queues)...)),
		Cells:       cells,
		SharedCache: shared, Compiler: comp,
		RunsRead: runsRead, Python: py, NoPython: noPy,
		Toolchain: tc, Jobs: local.Jobs, Devices: local.Devices, PerDevice: local.Choice.PerDevice,
		MaxQueued: f.maxQueued, GPUPerHour: f.gpuPerHour, DiskPerStudent: f.diskMiB << 20, Timeout: timeout, CompileOnly: m.GPUErr != nil,
		Trace: traceWriter(trace), Workers: nodes.workers(), NoMemoryBound: noMemory, OwnWorkFS: noOwnFS == "",
		Hosts: f.hosts, ProxyHeader: f.proxyHeader, ProxyAddr: f.proxyAddr, ProxySecret: secret, Served: ln.Addr(), Instructors: f.instructors,
	})
	if err != nil {
		return err
	}
	defer cls.Close()
	var handler http.Handler = cls
	if nodes != nil {
		h, stop, err := nodes.start(ctx, cls, f.dir, local.Devices, []string{capabilityVar + "=" + capability(m)}, out)
		if err != nil {
			return err
		}
		defer stop()
		handler = h
	}
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); hs.Close() }()
	fmt.Fprintf(out, "Serving the class of %s (%d students) at %s; %d GPU(s), %d runs at once on each; lessons invite makes the sign-in links\n",
		c.Title, len(roster), ln.Addr(), len(local.Devices), local.Choice.PerDevice)
	fmt.Fprint(out, local.Guards())
	if noOwnFS != "" {
		fmt.Fprintf(out, "A student's workspaces are folders of the class's disk (%s): their caps (--disk-per-student, files) are checked between runs, so within its time limit a cell can still fill the disk; run the server as root, with loop devices and mkfs.ext4, for a file system of their own each\n", noOwnFS)
	}
	if noMemory != "" {
		fmt.Fprintf(out, "A cell's memory is not bounded here (no cgroups: %s): its private memory is (RLIMIT_DATA), its shared memory, memfds and CUDA's pinned host memory are not, so cells at once can run the machine out of memory; run the server where it may make cgroup v2 groups to bound it\n", noMemory)
	}
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// sharedCache is the class's shared cache of the cells' builds
// (classroom's prebuild.go), the cells' variable that names it, and the
// folder for the cells to read: only where the server is root and the
// cells run as users of their own, whom its folders' modes (entered, not
// listed) keep from listing other students' builds. Elsewhere, none:
// each student's cells build in their own cache.
func sharedCache(classDir string) (*buildcache.Cache, []string, []string, error) {
	if os.Geteuid() != 0 || os.Getenv("LESSONS_SANDBOX_USERS") == "off" {
		return nil, nil, nil, nil
	}
	dir, err := filepath.Abs(filepath.Join(classDir, "cache"))
	if err == nil {
		err = os.MkdirAll(dir, 0o711)
	}
	if err == nil {
		err = os.Chmod(dir, 0o711)
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the class's build cache: %w", err)
	}
	return &buildcache.Cache{Dir: dir, MaxBytes: buildcache.DefaultMaxBytes, Shared: true}, []string{"LESSONS_SHARED_CACHE=" + dir}, []string{dir}, nil
}

// openTrace opens $LESSONS_TRACE, when it is set, for the class's
// trace of each run's phases (classroom.Trace), appending.
func openTrace() (*os.File, error) {
	file := os.Getenv("LESSONS_TRACE")
	if file == "" {
		return nil, nil
	}
	fh, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("LESSONS_TRACE: %w (name a file the server may write, or unset it)", err)
	}
	return fh, nil
}

// traceWriter is fh as the class's trace, nil when there is none (a nil
// *os.File in an io.Writer would not be nil).
func traceWriter(fh *os.File) io.Writer {
	if fh == nil {
		return nil
	}
	return fh
}

func readRoster(file string) ([]classroom.Student, error) {
	if file == "" {
		return nil, errors.New("the class needs --roster FILE (a CSV of id,name,email, or the roster.csv that grade unpack writes)")
	}
	return roster.Load(file)
}

// Invite is lessons invite.
func Invite(out io.Writer) *cobra.Command {
	var dir, roster, base string
	var instructor bool
	cmd := &cobra.Command{
		Use:   "invite [STUDENT...]",
		Short: "Make the class's single-use sign-in links (serve --class)",
		Long: `Make a fresh sign-in link for every student of the roster (or those
named), or with --instructor the instructor's, and print them as CSV
(id,name,email,link) for a mail merge. Each link works once and replaces
the ones made before for the same person; it may be made while the
server runs.`,
		Example: "  lessons invite --class /srv/class --roster roster.csv --url https://gpu.uni.example > links.csv\n  lessons invite --class /srv/class --url https://gpu.uni.example --instructor",
		RunE: func(cmd *cobra.Command, args []string) error {
			var people []classroom.Student
			if !instructor {
				var err error
				if people, err = readRoster(roster); err != nil {
					return err
				}
			}
			links, err := classroom.Invite(dir, base, people, args, instructor)
			if err != nil {
				return err
			}
			return classroom.WriteLinks(out, links)
		},
	}
	cmd.Flags().StringVar(&dir, "class", "", "the class's `DIR`, as serve --class names it")
	cmd.Flags().StringVar(&roster, "roster", "", "the roster, a CSV `FILE` of id,name,email")
	cmd.Flags().StringVar(&base, "url", "", "the class server's `URL` as students open it")
	cmd.Flags().BoolVar(&instructor, "instructor", false, "the instructor's link")
	cmd.MarkFlagRequired("class")
	cmd.MarkFlagRequired("url")
	return cmd
}

// Submit is lessons submit.
func Submit(out io.Writer) *cobra.Command {
	var server string
	cmd := &cobra.Command{
		Use:   "submit EXERCISE FILE",
		Short: "Hand in a file to the class server, graded as lessons grade grades",
		Long: `Hand in FILE as your exercise to the class server (--server, or
$LESSONS_CLASS_SERVER) with your token ($LESSONS_CLASS_TOKEN: the page
gives it, under "Token for lessons submit"), and print the feedback.`,
		Example: "  LESSONS_CLASS_TOKEN=... lessons submit --server https://gpu.uni.example block-pool block_pool.cu",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if server == "" {
				server = os.Getenv("LESSONS_CLASS_SERVER")
			}
			tok := os.Getenv("LESSONS_CLASS_TOKEN")
			if server == "" || tok == "" {
				return errors.New("submit needs the server (--server or $LESSONS_CLASS_SERVER) and your token ($LESSONS_CLASS_TOKEN, from the page's \"Token for lessons submit\")")
			}
			data, err := os.ReadFile(args[1])
			if err != nil {
				return fmt.Errorf("submit: %w", err)
			}
			res, err := classroom.Submit(cmd.Context(), http.DefaultClient, server, tok, args[0], string(data))
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "Submitted #%d: %s, %d of %d points\n\n%s", res.Attempt, res.Status, res.Points, res.Max, res.Feedback)
			return nil
		},
	}
	cmd.Flags().StringVar(&server, "server", "", "the class server's `URL`")
	return cmd
}

// sandboxPython is the python3 the students' Python cells run with, or
// why there is none: it must lie where every sandboxed run may read (a
// pyenv's under /root does not), found by its real path.
func sandboxPython(ctx context.Context, read []string) (*python.Interpreter, string) {
	interp, err := python.Find(ctx)
	if err != nil {
		return nil, "the class server found " + err.Error() + ": install python3 (under /usr) for Python cells, which run in the sandbox"
	}
	real, err := filepath.EvalSymlinks(interp.Path)
	if err != nil {
		return nil, "python3: " + err.Error()
	}
	for _, r := range read {
		if rel, err := filepath.Rel(r, real); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			interp.Path = real
			return interp, ""
		}
	}
	return nil, fmt.Sprintf("the class server's python3 (%s) is outside what the sandbox may read (%s): put a python3 under /usr first on the server's PATH", real, strings.Join(read, ", "))
}

// toolRoots are the toolkit's folder (/usr/local/cuda for its bin/nvcc),
// as named and as the links lead, for the cells' sandbox to read.
func toolRoots(nvcc string) []string {
	out := []string{filepath.Dir(filepath.Dir(nvcc))}
	if real, err := filepath.EvalSymlinks(nvcc); err == nil {
		out = append(out, filepath.Dir(filepath.Dir(real)))
	}
	return out
}
