package classroom

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/classroom/access"
	"github.com/cudalessons/lessons/internal/classroom/pilot"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/python"
	"github.com/cudalessons/lessons/internal/render"
	"github.com/cudalessons/lessons/internal/rig"
	"github.com/cudalessons/lessons/internal/roster"
	"github.com/cudalessons/lessons/internal/sandbox"
	lessonws "github.com/cudalessons/lessons/internal/workspace"
)

// ServeOptions are serve --class's settings (its flags).
type ServeOptions struct {
	Dir, Roster, Cert, Key  string
	ProxyHeader, ProxyAddr  string
	ProxySecretFile, Group  string
	Instructors, Hosts      []string
	MaxQueued, PerGPU, Jobs int
	Queues                  int
	DiskMiB                 int64
	GPUPerHour              time.Duration
	// Addr is where to listen, Timeout a cell's time limit.
	Addr    string
	Timeout time.Duration
	// Slurm, when it asks for nodes, sends runs and builds to pilot jobs.
	Slurm pilot.SlurmOptions
}

// Server is a class server put together, listening, not yet serving.
// Close it.
type Server struct {
	ln      net.Listener
	cls     *Class
	handler http.Handler
	notes   []string
	closers []func()
}

// NewServer puts the class of course c together as o asks: its rig (a
// grader's; a build node's where every run is on the Slurm nodes), the
// cells' sandbox, the shared cache, Python, the pilots, and listens.
// log gets the pilots' lines as they come.
func NewServer(ctx context.Context, c *course.Course, o ServeOptions, log io.Writer) (_ *Server, err error) {
	s := &Server{}
	defer func() {
		if err != nil {
			s.Close() // what was put together before the error
		}
	}()
	if err := machine.CheckQueues(o.Queues); err != nil {
		return nil, err
	}
	if o.Roster == "" {
		return nil, failure.Usagef("the class needs --roster FILE (a CSV of id,name,email, or the roster.csv that grade unpack writes)")
	}
	people, err := roster.Load(o.Roster)
	if err != nil {
		return nil, err
	}
	var secret string
	if o.ProxySecretFile != "" {
		if secret, err = ReadSecret(o.ProxySecretFile); err != nil {
			return nil, err
		}
	}
	if s.ln, err = access.Listen(o.Addr, o.Cert, o.Key, o.Group); err != nil {
		return nil, err
	}
	s.closers = append(s.closers, func() { s.ln.Close() })
	perGPU := grade.Choose(o.PerGPU, 0, 1, 0, "").PerDevice
	jobs := o.Jobs
	if jobs == 0 {
		jobs = runtime.NumCPU()
	}
	r, err := rig.Grader(ctx, "serve --class", "lessons-class-")
	if err != nil {
		r, err = o.Slurm.Gpuless(ctx, err) // every run on the nodes
	}
	if err != nil {
		return nil, fmt.Errorf("serve --class runs the students' code in grade's sandbox on the GPUs: %w", err)
	}
	local, err := grade.LocalOn(ctx, r, nil, jobs, perGPU, 0)
	if err != nil {
		r.Close()
		return nil, err
	}
	s.closers = append(s.closers, local.Close)
	m := r.Machine
	// No tasks to choose from: untimed exercises get grade's fewer
	// hardware queues (CUDA starts faster), timed ones CUDA's own.
	choice := grade.Choose(perGPU, o.Queues, 1, 1, "the timed")
	local.Toolchain = choice.Pipeline(local.Toolchain.Toolkit, local.Toolchain.Runner)
	comp := m.Compiler()
	trace, err := openTrace(os.Getenv("LESSONS_TRACE"))
	if err != nil {
		return nil, err
	}
	if trace != nil {
		s.closers = append(s.closers, func() { trace.Close() })
	}
	// With pilots the cells build on the nodes, in each student's cache
	// there: the server's shared cache is not theirs to read.
	var shared *buildcache.Cache
	var sharedVars, read []string
	if !o.Slurm.On() {
		if shared, sharedVars, read, err = sharedCache(o.Dir); err != nil {
			return nil, err
		}
	}
	roots := rig.ToolRoots(comp.Path)
	runsRead := append(append([]string(nil), sandbox.SystemRead...), roots...)
	py, noPy := sandboxPython(ctx, runsRead)
	var tc grade.Toolchain = local.Toolchain
	classDir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	// The cells' runs get cgroups of their own where this process may
	// make them (cores, memory, processes; every process killed at the
	// end), as grade's do; without, the rlimits hold.
	cells := r.Cells(append(roots, read...), StudentsDir(classDir))
	var nodes *pilot.Pilots
	if o.Slurm.On() {
		// Runs on the nodes' GPUs, builds on the build nodes (pilot).
		var solutions []string
		for _, x := range c.Exercises {
			solutions = append(solutions, x.Solution)
		}
		if nodes, err = o.Slurm.Prepare(c.Root, solutions, filepath.Join(o.Dir, PrivateDir), o.PerGPU); err != nil {
			return nil, err
		}
		tc, cells = nodes.Remote.Toolchain(tc), nodes.Remote.Cells(cells)
	}
	// Each student's workspaces a file system of their own, where this
	// server may make them: the disk and file caps then hold during a run.
	noOwnFS := sandbox.CanOwnFS()
	if o.DiskMiB <= 0 {
		noOwnFS = "--disk-per-student 0"
	}
	noMemory := r.NoMemoryBound()
	s.cls, err = Open(Config{
		Course: c, Dir: o.Dir, Roster: people,
		Site:        func() (map[string][]byte, error) { return render.Site(c) },
		Env:         lessonws.ClassEnv(comp, append(sharedVars, machine.QueuesEnv(choice.Queues)...)),
		Cells:       cells,
		SharedCache: shared, Compiler: comp,
		RunsRead: runsRead, Python: py, NoPython: noPy,
		Toolchain: tc, Jobs: local.Jobs, Devices: local.Devices, PerDevice: local.Choice.PerDevice,
		MaxQueued: o.MaxQueued, GPUPerHour: o.GPUPerHour, DiskPerStudent: o.DiskMiB << 20, Timeout: o.Timeout, CompileOnly: m.GPUErr != nil,
		Trace: traceWriter(trace), Workers: nodes.Workers(), NoMemoryBound: noMemory, OwnWorkFS: noOwnFS == "",
		Hosts: o.Hosts, ProxyHeader: o.ProxyHeader, ProxyAddr: o.ProxyAddr, ProxySecret: secret, Served: s.ln.Addr(), Instructors: o.Instructors,
	})
	if err != nil {
		return nil, err
	}
	cls := s.cls
	s.closers = append(s.closers, func() { cls.Close() })
	s.handler = s.cls
	if nodes != nil {
		h, stop, note, err := nodes.Start(ctx, s.cls.Queue(), s.cls, filepath.Join(o.Dir, PrivateDir), local.Devices, []string{pilot.CapabilityVar + "=" + rig.Capability(m)}, log)
		if err != nil {
			return nil, err
		}
		s.closers = append(s.closers, stop)
		s.handler = h
		s.notes = append(s.notes, note)
	}
	s.notes = append([]string{fmt.Sprintf("Serving the class of %s (%d students) at %s; %d GPU(s), %d runs at once on each; lessons invite makes the sign-in links",
		c.Title, len(people), s.ln.Addr(), len(local.Devices), local.Choice.PerDevice)}, s.notes...)
	// What guards the runs, as a grade's start line says it: the
	// sandbox's probe (processes that outlive a run, as root with
	// LESSONS_SANDBOX_USERS=off), the driver cross-check, the witness.
	s.notes = append(s.notes, strings.Split(strings.TrimSuffix(local.Guards(), "\n"), "\n")...)
	if noOwnFS != "" {
		s.notes = append(s.notes, fmt.Sprintf("A student's workspaces are folders of the class's disk (%s): their caps (--disk-per-student, files) are checked between runs, so within its time limit a cell can still fill the disk; run the server as root, with loop devices and mkfs.ext4, for a file system of their own each", noOwnFS))
	}
	if noMemory != "" {
		s.notes = append(s.notes, fmt.Sprintf("A cell's memory is not bounded here (no cgroups: %s): its private memory is (RLIMIT_DATA), its shared memory, memfds and CUDA's pinned host memory are not, so cells at once can run the machine out of memory; run the server where it may make cgroup v2 groups to bound it", noMemory))
	}
	return s, nil
}

// Notes are what the server says before it serves: where, and what it
// cannot bound here.
func (s *Server) Notes() []string { return s.notes }

// Serve serves the class until ctx ends (Ctrl-C).
func (s *Server) Serve(ctx context.Context) error {
	hs := &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); hs.Close() }()
	if err := hs.Serve(s.ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Close stops the pilots, closes the class and the listener, and lets
// the rig go.
func (s *Server) Close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// sharedCache is the class's shared cache of the cells' builds
// (prebuild.go), the cells' variable that names it, and the folder for
// the cells to read: only where the server is root and the cells run as
// users of their own, whom its folders' modes (entered, not listed) keep
// from listing other students' builds. Elsewhere, none: each student's
// cells build in their own cache.
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

// openTrace opens file ($LESSONS_TRACE), when it is named, for the
// class's trace of each run's phases (Trace), appending.
func openTrace(file string) (*os.File, error) {
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
