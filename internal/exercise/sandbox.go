package exercise

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/runner"
	"github.com/cudalessons/lessons/internal/sandbox"
)

// Sandbox builds and runs untrusted files (a class's): each in a scratch
// folder of its own that holds only that job's files (and, for a run, the
// program and the statistics library), as a user of its own per slot when
// the grader is root, in a cgroup of its own where the machine allows.
type Sandbox struct {
	root string
	self string   // a copy of this binary that every worker's user can run
	read []string // further folders they may read ($LESSONS_SANDBOX_READ)
	// users is off when $LESSONS_SANDBOX_USERS=off: workers keep the
	// grader's user (for a toolkit that other users cannot reach).
	users bool
	// cgroups, where the machine lets this process make them, give each
	// build and run a group of its own (cores, memory, processes); nil
	// otherwise, or when $LESSONS_SANDBOX_CGROUPS=off.
	cgroups  *sandbox.Cgroups
	noCgroup string // why there are none
	temp     bool   // root was made by TempSandbox: Close removes it
	// noWriteExec: runs may not write code (unless $LESSONS_SANDBOX_WX=off).
	noWriteExec bool
}

var _ Runner = (*Sandbox)(nil)

// Users of the sandboxed workers, when the grader runs as root; each slot
// owns the users base+slot, base+slot+64, ...
const (
	buildUID = 61000 // to 61447
	runUID   = 61500 // to 61947
	// MaxSlots is how many builds, and how many runs, may share a Sandbox.
	MaxSlots = 64
)

// runCPUs are the cores of an untimed exercise's run (a cgroup's
// cpu.max), where builds and timed runs get sandbox.DefaultLimits' 2: a
// CUDA exercise's host side is one thread, and a runaway one (a fork bomb,
// a spinning loop) then takes one core from the builds for its whole time
// limit, not two.
const runCPUs = 1

// runDirFiles and runDirBytes cap a run's folder (a file system of its
// own, sandbox.Policy.DirFiles): no exercise writes more than a few files,
// and a run that makes files until none are left fills its own folder,
// not the disk the class's builds and runs share. The bytes are four
// files of the size limit.
const (
	runDirFiles = 4096
	runDirBytes = 4 * 64 << 20
)

// runYield is how long an untimed exercise's run keeps its full share of
// the CPU: an exercise runs in well under a second, and one still running
// after this is most often looping until its time limit, while the
// builds it takes cores from hold up the rest of the class. It keeps
// running (sandbox.Policy.Yield); $LESSONS_SANDBOX_YIELD=off turns this
// off.
const runYield = 2 * time.Second

// NewSandbox makes a sandbox in root, a folder of the grader's.
func NewSandbox(root string) (*Sandbox, error) {
	os.Chmod(root, 0o711) // workers' users reach their own folders, and list nothing
	s := &Sandbox{root: root, self: filepath.Join(root, "lessons-sandbox"), users: os.Getenv("LESSONS_SANDBOX_USERS") != "off"}
	for _, p := range filepath.SplitList(os.Getenv("LESSONS_SANDBOX_READ")) {
		if p != "" {
			s.read = append(s.read, p)
		}
	}
	for _, d := range []string{"build", "run"} {
		// Traversable by the workers' users, listable by none; each
		// worker's own folder in it is its alone (0700).
		if err := os.Mkdir(filepath.Join(root, d), 0o711); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		os.Chmod(filepath.Join(root, d), 0o711)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if err := copyFile(exe, s.self, 0o755); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	// A run writes no code after it starts (sandbox.Policy.NoWriteExec):
	// measured on the H200 (CUDA 13.0, driver 580), every program of the
	// course ran alike with the rule and without (VMM, IPC between
	// processes, graphs included). $LESSONS_SANDBOX_WX=off lifts it, for a
	// driver or toolkit that turns out to need such memory.
	s.noWriteExec = os.Getenv("LESSONS_SANDBOX_WX") != "off"
	s.cgroups, s.noCgroup = OpenCgroups() // without, the rlimits still hold
	return s, nil
}

// OpenCgroups opens a group for sandboxed programs (cores, memory,
// processes; every process killed at the end) where this process may
// make cgroup v2 groups, unless $LESSONS_SANDBOX_CGROUPS=off: the one
// reader of that setting. Without, it is nil and says why.
func OpenCgroups() (*sandbox.Cgroups, string) {
	if os.Getenv("LESSONS_SANDBOX_CGROUPS") == "off" {
		return nil, "LESSONS_SANDBOX_CGROUPS=off"
	}
	cg, err := sandbox.OpenCgroups()
	if err != nil {
		return nil, err.Error()
	}
	return cg, ""
}

// OwnUsers says whether builds and runs get users of their own (the
// grader is root and $LESSONS_SANDBOX_USERS is not off): else they run
// as the grader's user.
func (s *Sandbox) OwnUsers() bool { return s.users && os.Geteuid() == 0 }

// Close removes what the sandbox made outside its folder.
func (s *Sandbox) Close() {
	s.cgroups.Close()
	if s.temp {
		os.RemoveAll(s.root)
	}
}

// TempSandbox makes a sandbox in a new temporary folder named after
// prefix, which Close removes.
func TempSandbox(prefix string) (*Sandbox, error) {
	root, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	s, err := NewSandbox(root)
	if err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	s.temp = true
	return s, nil
}

// Report says which protections this sandbox gives here: what a probe
// started in a run's sandbox (its user, namespaces, cgroup, Landlock and
// filter) found, not what the kernel merely offers.
func (s *Sandbox) Report() sandbox.Report {
	pol := sandbox.Policy{Limits: sandbox.DefaultLimits, Read: s.read}
	pol.CPUs = runCPUs
	pol.DirFiles, pol.DirBytes = runDirFiles, runDirBytes
	pol.UID, pol.GID = s.user(runUID, 0)
	rep := s.runner(pol).Verify(context.Background())
	rep.BuildCPUs = sandbox.DefaultLimits.CPUs
	if s.cgroups == nil {
		rep.NoCgroup = s.noCgroup
	}
	return rep
}

// Probe makes a sandbox in a temporary folder, reports what a probe
// found in it, and removes it (for lessons doctor).
func Probe() sandbox.Report {
	s, err := TempSandbox("lessons-probe-")
	if err != nil {
		return sandbox.Report{Failed: err.Error()}
	}
	defer s.Close()
	return s.Report()
}

func (s *Sandbox) runner(pol sandbox.Policy) sandbox.Runner {
	return sandbox.Runner{Policy: pol, Self: s.self, Cgroups: s.cgroups}
}

// policy is the sandbox of one build or run. Its user is the first of
// the slot's range with no process left, zombies included (they count
// against the process limit until reaped), that no run holds (another
// grader's on this machine).
func (s *Sandbox) policy(dir string, base, slot int) (sandbox.Policy, error) {
	pol := sandbox.Policy{Limits: sandbox.DefaultLimits, Dir: dir, Read: s.read}
	pol.UID, pol.GID = s.user(base, slot)
	return pol, sandbox.Own(dir, pol.UID, pol.GID)
}

// user is the user (uid, gid) of a slot's next build or run: 0 when
// workers keep the grader's user.
func (s *Sandbox) user(base, slot int) (int, int) {
	if !s.users {
		return 0, 0
	}
	uid := base + slot%MaxSlots
	for k := 0; k < 7 && !sandbox.UserFree(uid); k++ {
		uid += MaxSlots
	}
	return uid, uid
}

// toolRoot is the folder of a toolkit: /usr/local/cuda for its bin/nvcc,
// found from nvcc's real path. Reached through a link (a course's bin/nvcc
// on the PATH), the folder above the link's would be the course, whose
// solutions and secret specs a build could then #include.
func toolRoot(nvcc string) string {
	if real, err := filepath.EvalSymlinks(nvcc); err == nil {
		nvcc = real
	}
	return filepath.Dir(filepath.Dir(nvcc))
}

// pythonRoots are the folders a Python interpreter's run reads: the
// folder above its bin/ as named (a virtual environment's, whose python3
// is a link out of it) and as the link leads, each only where it is a
// Python installation (never a home folder with a python3 in its bin/,
// whose other files the run must not read), and never the root.
func pythonRoots(py string) []string {
	var out []string
	for _, root := range []string{filepath.Dir(filepath.Dir(filepath.Clean(py))), toolRoot(py)} {
		if root != "/" && root != "." && !slices.Contains(out, root) && pythonHome(root) {
			out = append(out, root)
		}
	}
	return out
}

// pythonHome says whether root is a Python installation: a virtual
// environment (pyvenv.cfg) or a prefix with lib/python3.*.
func pythonHome(root string) bool {
	if _, err := os.Stat(filepath.Join(root, "pyvenv.cfg")); err == nil {
		return true
	}
	libs, _ := filepath.Glob(filepath.Join(root, "lib", "python3*"))
	return len(libs) > 0
}

func (s *Sandbox) build(ctx context.Context, tk *Toolkit, j *Job, slot int) (*buildPlace, error) {
	hash := j.Hash
	if len(hash) > 12 {
		hash = hash[:12]
	}
	dir := filepath.Join(s.root, "build", fmt.Sprintf("%s-%s", j.ID, hash))
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o700); err != nil {
		return nil, err
	}
	// The spec's names stay inside dir (ParseSpec refuses others).
	if err := writeFiles(dir, j.Files); err != nil {
		return nil, err
	}
	pol, err := s.policy(dir, buildUID, slot)
	if err != nil {
		return nil, err
	}
	// s.read is every build's: appended to in place, two builds at once
	// wrote the same element (go test -race, a grade of a class).
	pol.Read = append(slices.Clip(pol.Read), toolRoot(tk.NVCC.Path))
	pol.CPU, pol.Memory, pol.FileSize = 600, 16<<30, 1<<30 // nvcc's front end is hungry
	pol.NoDevices = true
	// Runs wait on builds and on the host work of starting CUDA: builds
	// yield the cores to the runs' processes.
	pol.Nice = 10
	env := []string{"PATH=" + filepath.Dir(tk.NVCC.Path) + ":" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + filepath.Join(dir, "tmp"), "LANG=C"}
	return &buildPlace{
		dir: dir, prog: "prog", sources: j.Spec.Sources(j.Files[0].Name), env: env, runner: s.runner(pol),
		failed: func(log []byte) error {
			if bytes.Contains(log, []byte("lessons sandbox:")) {
				return fmt.Errorf("the sandbox failed: %s", strings.TrimSpace(string(log)))
			}
			return nil
		},
	}, nil
}

func (s *Sandbox) run(ctx context.Context, tk *Toolkit, j *Job, built, device string, slot int) (*runPlace, error) {
	dir := filepath.Join(s.root, "run", fmt.Sprint(slot))
	os.RemoveAll(dir)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	prog := filepath.Join(dir, "prog")
	if err := copyFile(built, prog, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	pol, err := s.policy(dir, runUID, slot)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	pol.DirFiles, pol.DirBytes = runDirFiles, runDirBytes
	if isPython(j) {
		// The interpreter and its packages, where the grader found them
		// (a virtual environment, conda's folder): the run starts it.
		if py, err := tk.python(ctx); err == nil {
			pol.Read = append(slices.Clip(pol.Read), pythonRoots(py)...)
		}
	}
	pol.NoWriteExec = s.noWriteExec
	if !j.Spec.Timed {
		pol.CPUs = runCPUs
		if os.Getenv("LESSONS_SANDBOX_YIELD") != "off" {
			pol.Yield = runYield
		}
	}
	// The statistics library makes every run's process not dumpable
	// (kernels/allocstats.cu): a Python script's interpreter is readable,
	// so the execute-only binary below does not do it for a script.
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + dir, "LANG=C", "LESSONS_STATS_UNDUMPABLE=1"}
	if device != "" {
		env = append(env, "CUDA_VISIBLE_DEVICES="+device)
	}
	env = append(env, j.Env...)
	p := &runPlace{
		dir: dir, prog: prog, lib: filepath.Join(dir, "liballocstats.so"), env: env, runner: s.runner(pol),
		failed: func(res *runner.Result, out []byte) error {
			if res.ExitCode == 125 && bytes.HasPrefix(out, []byte("lessons sandbox:")) {
				return fmt.Errorf("the sandbox failed: %s", strings.TrimSpace(string(out)))
			}
			return nil
		},
		done: func() { os.RemoveAll(dir) },
	}
	// compute-sanitizer reads its own folder of the toolkit, keeps files
	// in TMPDIR (the run's folder), and writes to /proc (measured on the
	// H100: with /proc read-only it stops at "Target application
	// terminated before first instrumented API call"). A worker's own user
	// limits that to this run's processes; as the grader's own user it
	// would reach the grader's: not allowed.
	if pol.UID == 0 {
		p.unable = "compute-sanitizer runs only when each worker has a user of its own (grade as root)"
	}
	//
	// Its log goes to a folder beside the run's that its target cannot
	// reach: compute-sanitizer starts this binary again for it, which
	// enters a second layer (the run's folder only, no ptrace, the log's
	// descriptor closed) before it becomes the program. In the run's own
	// folder, a program could replace the log with "ERROR SUMMARY: 0
	// errors".
	logs := dir + ".logs"
	os.RemoveAll(logs)
	if err := os.Mkdir(logs, 0o700); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := sandbox.Own(logs, pol.UID, pol.GID); err != nil {
		os.RemoveAll(dir)
		os.RemoveAll(logs)
		return nil, err
	}
	p.done = func() { os.RemoveAll(dir); os.RemoveAll(logs) }
	tools := []string{toolRoot(tk.NVCC.Path)}
	if tk.Sanitizer != "" {
		tools = append(tools, toolRoot(tk.Sanitizer))
	}
	inner := sandbox.Policy{Dir: dir, Read: append(slices.Clip(pol.Read), tools...), Landlock: pol.Landlock, KeepFDs: sandbox.AllFDs, Hide: []string{logs}}
	spol := pol
	// compute-sanitizer patches its target's code as it instruments it.
	spol.NoWriteExec = false
	spol.Read = append(slices.Clip(pol.Read), append(tools, s.self)...)
	spol.Write = append(slices.Clip(pol.Write), "/proc", logs)
	spol.Inner = &inner
	// The tool is NVIDIA's, not the student's: its sockets are its own
	// business; the target's layer refuses them.
	spol.UnixSockets = true
	p.sanitizer = s.runner(spol)
	p.logs, p.target = logs, []string{s.self}
	return p, nil
}
