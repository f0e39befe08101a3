// Package sandbox runs untrusted programs (a student's build and run, when an
// instructor grades a class) inside limits: CPU time, memory, processes,
// file size and open files (rlimits); no writes outside one folder and no
// reads outside the system's own folders and that one (Landlock, on the
// folders' real paths); no network (a network namespace of its own: as
// root a plain one, as a user inside a user namespace of its own, and
// Landlock's TCP and UDP rules); no terminal (a session of its own,
// /dev/tty out of reach, the terminal ioctls that type into one refused by
// seccomp); no Unix-domain socket outside its folder (Landlock's scopes
// and, where the kernel cannot tell pathname sockets apart, no AF_UNIX
// socket at all); none of the grader's descriptors; the device files of
// the GPUs its CUDA_VISIBLE_DEVICES names alone, in a /dev of its own
// (devices.go); a folder that holds only so many files (owndir.go); no
// signal to the grader; and, when the tool runs as root, a user of its
// own, so that the process limit counts that program's processes alone.
//
// A sandboxed program is started through this very binary: the child first
// runs Helper, which applies the rlimits, Landlock and the system call
// filter to itself and then replaces itself with the program. Every binary
// that starts sandboxed programs must call Helper first thing in main (or
// TestMain). What a Report claims comes from a probe run in that sandbox
// (Runner.Verify), never from what the kernel merely offers.
package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/cudalessons/lessons/internal/runner"
)

// Limits are the resource limits of one sandboxed program; a zero field is
// no limit.
type Limits struct {
	// CPU is the CPU time in seconds (RLIMIT_CPU); the wall-clock limit is
	// the runner's Timeout.
	CPU uint64 `json:"cpu,omitempty"`
	// Memory caps the program's data (heap and private writable mappings,
	// RLIMIT_DATA). Not the address space: the CUDA runtime reserves tens
	// of gigabytes of it at start, and fails under any RLIMIT_AS that would
	// be a real limit.
	Memory uint64 `json:"memory,omitempty"`
	// Procs is how many processes (and threads) the program's user may
	// have at once (RLIMIT_NPROC).
	Procs uint64 `json:"procs,omitempty"`
	// FileSize is the largest file the program may write (RLIMIT_FSIZE).
	FileSize uint64 `json:"file_size,omitempty"`
	// Files is how many files the program may have open (RLIMIT_NOFILE).
	Files uint64 `json:"files,omitempty"`
	// CPUs is how many cores the program and its children together may
	// keep busy (cgroup cpu.max; with a Runner's Cgroups only).
	CPUs float64 `json:"cpus,omitempty"`
}

// DefaultLimits suit a CUDA exercise: generous for a real program, small
// for a fork bomb or a runaway printer.
var DefaultLimits = Limits{
	CPU:      120,
	Memory:   4 << 30,
	Procs:    256,
	FileSize: 64 << 20,
	Files:    1024,
	CPUs:     2,
}

// Policy is what one sandboxed program may do.
type Policy struct {
	Limits
	// Dir is the program's scratch folder: the one folder it may write,
	// and its working directory.
	Dir string `json:"dir"`
	// Read are further files and folders it may read (and execute), such
	// as the compiler's folder; the system's own folders are always
	// readable (SystemRead).
	Read []string `json:"read,omitempty"`
	// Write are further folders it may write.
	Write []string `json:"write,omitempty"`
	// UID and GID, when not zero and the tool runs as root, are the user
	// the program runs as.
	UID int `json:"uid,omitempty"`
	GID int `json:"gid,omitempty"`
	// NoDevices leaves the program /dev/null alone of the devices: a
	// build needs no GPU, and an #include of /dev/urandom or /dev/zero
	// never ends (it grows the compiler's memory until a limit stops it).
	NoDevices bool `json:"no_devices,omitempty"`
	// DirFiles and DirBytes, when set, cap how many files (inodes, the
	// folder itself and what the grader put there included) and bytes the
	// program's folder may hold: it is a file system of its own
	// (owndir.go), where the helper has a mount namespace; OwnDir says
	// whether it has.
	DirFiles uint64 `json:"dir_files,omitempty"`
	DirBytes uint64 `json:"dir_bytes,omitempty"`
	OwnDir   bool   `json:"own_dir,omitempty"`
	// Veil, when set, is a folder above Dir whose other entries the
	// program does not see, even by stat (a class's students/, above a
	// student's workspace): where the helper has a mount namespace, it
	// holds the way to Dir alone (veil.go).
	Veil string `json:"veil,omitempty"`
	// Devices are the device files the program may open, read and
	// write, and DevDir the folder they are in (/dev): the Runner sets
	// them from NoDevices and the GPUs the program's CUDA_VISIBLE_DEVICES
	// names (devices.go). OwnDev says the helper makes DevDir, in its
	// mount namespace, hold them alone.
	Devices []string `json:"devices,omitempty"`
	DevDir  string   `json:"dev_dir,omitempty"`
	OwnDev  bool     `json:"own_dev,omitempty"`
	// OwnSignals, set by the Runner where the program shares its user
	// with the grader and has no pid namespace, keeps it to signalling
	// itself and its process group where Landlock cannot scope signals
	// (before ABI 6): see filter.signals.
	OwnSignals bool `json:"own_signals,omitempty"`
	// Network is allowed when set; by default the program has none.
	Network bool `json:"network,omitempty"`
	// NoWriteExec refuses the program memory that is writable and
	// executable, and memory made executable after it was mapped
	// (filter.noWriteExec): no code written after it starts.
	NoWriteExec bool `json:"no_write_exec,omitempty"`
	// Nice lowers the program's CPU priority (1 to 19, as nice(1) takes
	// it), so that it yields the cores to work that others wait on.
	Nice int `json:"nice,omitempty"`
	// Yield, with a cgroup, is how long the program runs with its full
	// share of the CPU; after it, its cgroup's cpu.weight drops to
	// YieldWeight, so that a program still running (most often an endless
	// loop, waiting for its time limit) yields the cores to others that
	// need them, and still has them when nobody else does. 0 never.
	Yield time.Duration `json:"yield,omitempty"`
	// Landlock caps the Landlock ABI used (1 to 11; 0 is the best the
	// kernel has, -1 none), to find which restriction a program trips on.
	Landlock int `json:"landlock,omitempty"`
	// UnixSockets lets the program make AF_UNIX sockets where Landlock
	// cannot refuse pathname ones (before ABI 9), to find which
	// restriction a program trips on; by default it may not.
	UnixSockets bool `json:"unix_sockets,omitempty"`
	// KeepFDs is how many descriptors from 3 on the program keeps: Runner
	// sets it to the number of its Spec's ExtraFiles. Every other
	// descriptor above 2 is closed when the program starts, so that
	// nothing the grader holds open (a library's device file, a database)
	// leaks in. AllFDs keeps every one.
	KeepFDs int `json:"keep_fds,omitempty"`
	// Hide are files and folders whose open descriptors the program never
	// inherits, AllFDs or not (compute-sanitizer opens its log without
	// O_CLOEXEC, and its target would inherit it).
	Hide []string `json:"hide,omitempty"`
	// Inner, when set, makes the program a tool that starts this binary
	// again for its target (compute-sanitizer: TOOL ... SELF PROG ARGS):
	// the target enters Inner, a second layer under this one, before it
	// becomes PROG. The tool itself may trace its target; a program
	// without Inner may trace nothing (ptrace, process_vm_readv/writev).
	Inner *Policy `json:"inner,omitempty"`
	// PIDNS and StatusFD are the Runner's: the helper starts as the
	// first process of a pid namespace of its own, runs the program
	// under it, and writes how the program ended to StatusFD (pidns.go).
	PIDNS    bool `json:"pidns,omitempty"`
	StatusFD int  `json:"status_fd,omitempty"`
	// OwnProc is the init's word to the program's helper: the /proc it
	// sees is the namespace's, showing the run's processes alone.
	OwnProc bool `json:"own_proc,omitempty"`
	// OwnShm is the helper's word to itself and the program's helper:
	// the run's mount namespace has a /dev/shm of its own (mountShm),
	// which the program may write.
	OwnShm bool `json:"own_shm,omitempty"`
	// HideProc is the Runner's (hideproc.go): the helper, a user of its
	// own under a root grader, mounts a /proc that shows it its own
	// processes alone.
	HideProc bool `json:"hide_proc,omitempty"`
}

// AllFDs, as a Policy's KeepFDs, keeps every inherited descriptor: for
// an Inner policy, whose program inherits the tool's own (its pipes to
// its target), the grader's being closed already.
const AllFDs = -1

// SystemRead are the folders every program may read: the system's
// programs and libraries, its settings, and the kernel's views. The user's
// home, /tmp, /root, /srv, /mnt and /work are left out, and so is /dev
// but for devRead and the devices it may write: a terminal (/dev/pts/N)
// it could open to read would hand it the keys typed there.
var SystemRead = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc", "/sys", "/run/nvidia-persistenced"}

// ReadByEveryRun is the folder of read (SystemRead when nil) that path
// lies in, compared as the links lead (Landlock's rules are on real
// paths), or "": a course or a class folder there is open to every
// student's program and build (the solutions, the secret specs, the
// classmates' files). An error when path cannot be resolved.
func ReadByEveryRun(read []string, path string) (string, error) {
	if read == nil {
		read = SystemRead
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	for _, r := range read {
		rr, err := filepath.EvalSymlinks(r)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(rr, real); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return r, nil
		}
	}
	return "", nil
}

// devRead are the folders of /dev a program may read: MIG's capability
// devices, and POSIX shared memory's folder.
var devRead = []string{"/dev/nvidia-caps", "/dev/shm"}

// deviceRW are the device files a program may write: the GPU's, and the
// harmless ones.
// Not /dev/tty: a program has no terminal of its own, and the grader's
// is the instructor's shell.
var deviceRW = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

const envPolicy = "LESSONS_SANDBOX_POLICY"

// exitHelper is the status of a helper that could not set the sandbox up.
const exitHelper = 125

// Runner is a runner.Runner that starts every program inside a policy.
type Runner struct {
	Policy Policy
	// Self is the binary that runs Helper; "" is this one.
	Self string
	// Cgroups, when set, gives the program a control group of its own
	// with the policy's CPUs, Memory and Procs; every process in it is
	// killed when the program ends.
	Cgroups *Cgroups
}

var _ runner.Runner = Runner{}

// Run runs spec inside the policy. The spec's Dir must be the policy's Dir
// or inside it.
func (r Runner) Run(ctx context.Context, spec runner.Spec, out io.Writer) (*runner.Result, error) {
	self := r.Self
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	p := r.Policy
	if p.Dir == "" {
		p.Dir = spec.Dir
	}
	if p.KeepFDs != AllFDs {
		p.KeepFDs = len(spec.ExtraFiles)
	}
	// A grader that is not root: a pid namespace per run, so that
	// nothing the program starts outlives it, and its process limit is
	// its own (pidns.go).
	var status *os.File
	p.OwnProc, p.OwnShm = false, false // only the helper says so
	if p.PIDNS = os.Geteuid() != 0 && usePIDNS(self); p.PIDNS {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		defer r.Close()
		status = r
		p.StatusFD = 3 + len(spec.ExtraFiles)
		spec.ExtraFiles = append(slices.Clip(spec.ExtraFiles), w)
		started := spec.Started
		spec.Started = func(pid int) {
			w.Close() // the init's copy is the one left
			if started != nil {
				started(pid)
			}
		}
		defer w.Close() // never started
	}
	if os.Geteuid() == 0 && p.UID != 0 {
		// Held until the user's processes are killed below, after the run.
		release, _ := lockUser(p.UID, true)
		defer release()
	}
	p.HideProc = !p.PIDNS && os.Geteuid() == 0 && p.UID != 0 && canHideProc(self, p.UID, p.GID)
	p.OwnDir = p.DirFiles > 0 && p.DirBytes > 0 && (p.PIDNS || p.HideProc)
	p.OwnSignals = !p.PIDNS && (os.Geteuid() != 0 || p.UID == 0)
	if p.OwnSignals && os.Geteuid() != 0 && !netnsOK() {
		graderUndumpable()
	}
	if len(spec.Argv) == 0 {
		return nil, errors.New("sandbox: no program")
	}
	prog, err := lookPath(spec.Argv[0], spec.Env)
	if err != nil {
		return nil, err
	}
	env := spec.Env
	if env == nil {
		env = os.Environ()
	}
	var rename string
	p.Devices, rename = devicesFor(p.NoDevices, env)
	p.DevDir, p.OwnDev = devRoot, p.PIDNS || p.HideProc
	if rename != "" {
		env = setEnv(env, "CUDA_VISIBLE_DEVICES", rename)
	}
	if p.Inner != nil {
		inner := *p.Inner
		inner.Devices, inner.DevDir = p.Devices, p.DevDir
		p.Inner = &inner
	}
	data, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	spec.Env = append(hideLoaderEnv(env), envPolicy+"="+string(data))
	spec.Argv = append([]string{self, prog}, spec.Argv[1:]...)
	// A run's init (pid namespace) stays this binary: its threads are not
	// the program's. The kernel keeps 15 bytes of a name.
	spec.Helper = filepath.Base(self)
	if len(spec.Helper) > 15 {
		spec.Helper = spec.Helper[:15]
	}
	var cg *cgroup
	if r.Cgroups != nil {
		if cg, err = r.Cgroups.group(p); err != nil {
			return nil, err
		}
		spec.Stop = func() { cg.kill() }
		// The program starts in the sandbox's group, not the caller's.
		if spec.Grouped != nil {
			spec.Grouped(cg.dir)
		}
		spec.Cgroup, spec.Grouped = nil, nil
	}
	spec.Prepare = func(cmd *exec.Cmd) {
		a := cmd.SysProcAttr
		if a == nil {
			a = &syscall.SysProcAttr{}
			cmd.SysProcAttr = a
		}
		if cg != nil {
			a.UseCgroupFD, a.CgroupFD = true, cg.fd
		}
		// A session of its own, with no controlling terminal: the
		// grader's terminal is the instructor's shell, and a program that
		// kept it could type into it (TIOCSTI) or write fake results there.
		// The session's id is the program's pid, so its process group is
		// still the one the runner kills.
		a.Setsid, a.Setpgid, a.Setctty = true, false, false
		if !p.Network && netnsOK() {
			withNetNS(a)
		}
		if p.PIDNS {
			withPIDNS(a)
		}
		if p.HideProc {
			withHiddenProc(a)
		}
		withIPCNS(a)
		if os.Geteuid() == 0 && p.UID != 0 {
			a.Credential = &syscall.Credential{Uid: uint32(p.UID), Gid: uint32(p.GID), NoSetGroups: false, Groups: []uint32{}}
		}
		a.Pdeathsig = syscall.SIGKILL
	}
	if cg != nil && p.Yield > 0 {
		t := time.AfterFunc(p.Yield, cg.yield)
		defer t.Stop()
	}
	res, err := runner.Exec{}.Run(ctx, spec, out)
	if err == nil {
		readStatus(status, res)
	}
	if cg != nil {
		if res != nil && res.Signal == syscall.SIGKILL && !res.TimedOut && !res.Truncated && !res.Canceled {
			res.OutOfMemory = cg.outOfMemory()
		}
		cg.close() // every process in it, whatever group or session it moved to
	}
	if os.Geteuid() == 0 && p.UID != 0 {
		// A process that left the group (setsid) is still the worker's
		// user's: none outlives the run.
		killUser(p.UID)
	}
	return res, err
}

// graderUndumpable makes this process's /proc entries root's, once: a
// program that runs as the grader's own user, with no user or pid
// namespace between them (user namespaces refused), could otherwise
// read its environment (an LMS key, a proxy's secret) and, without
// Landlock, write its memory or its oom_score_adj there. The filter
// keeps such a program's signals to itself (filter.signals). Only where
// there are no user namespaces: a child's uid_map is written through
// its /proc entry, which a grader that is not dumpable hands to root
// (every run then lost its network namespace).
var graderUndumpable = sync.OnceFunc(func() {
	unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
})

// killUser kills every process of uid, until none is left (a fork bomb
// forks while it is being killed).
func killUser(uid int) {
	for range 50 {
		pids := pidsOf(uid)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Busy reports whether uid has any process, zombies included: zombies
// still count against a user's process limit until they are reaped, so a
// user whose fork bomb left some is not given to the next program.
func Busy(uid int) bool { return len(tasksOf(uid, true)) > 0 }

// pidsOf lists the live (not zombie) processes owned by uid.
func pidsOf(uid int) []int { return tasksOf(uid, false) }

func tasksOf(uid int, zombies bool) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.Stat(filepath.Join("/proc", e.Name()))
		if err != nil {
			continue
		}
		if s, ok := st.Sys().(*syscall.Stat_t); !ok || int(s.Uid) != uid {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if i := bytes.LastIndexByte(stat, ')'); !zombies && i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
				continue
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

// withNetNS gives the program a network namespace of its own: as root a
// plain one; as a user, inside a user namespace of its own that maps the
// user to itself alone, so that the files it opens (the GPU's device
// files) and the processes it counts are still that user's.
func withNetNS(a *syscall.SysProcAttr) {
	if os.Geteuid() != 0 {
		withUserNS(a)
	}
	a.Cloneflags |= syscall.CLONE_NEWNET
}

// withIPCNS gives the program an IPC namespace of its own, which ends
// with its last process: System V shared memory and message queues, and
// POSIX ones, are no files (Landlock does not see them) and outlive the
// process that made them, so a run could leave a classmate's run (or its
// student's next cell, after a hidden run) what it read, and hold their
// memory after it ended, counted by no limit of its own. As a user, it is
// made inside a user namespace (the run's, or one made for it where user
// namespaces work).
func withIPCNS(a *syscall.SysProcAttr) {
	if os.Geteuid() != 0 && a.Cloneflags&syscall.CLONE_NEWUSER == 0 {
		if !netnsOK() {
			return
		}
		withUserNS(a)
	}
	a.Cloneflags |= syscall.CLONE_NEWIPC
}

// withUserNS gives the program a user namespace of its own that maps the
// grader's user to itself alone.
func withUserNS(a *syscall.SysProcAttr) {
	uid, gid := os.Geteuid(), os.Getegid()
	a.Cloneflags |= syscall.CLONE_NEWUSER
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
}

// canNetNS tries a child in a network namespace of its own, made as
// withNetNS makes it: a kernel or a container may refuse (user namespaces
// turned off, or without the capabilities in them that AppArmor takes).
func canNetNS() bool {
	cmd := exec.Command("/bin/true")
	if _, err := os.Stat(cmd.Path); err != nil {
		return false
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	withNetNS(cmd.SysProcAttr)
	return cmd.Run() == nil
}

// netnsOK is canNetNS, tried once per process.
var netnsOK = sync.OnceValue(canNetNS)

// lookupEnv is the value env gives name (its last), and whether it
// gives one.
func lookupEnv(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// setEnv is env with name set to value, every earlier value gone.
func setEnv(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}

// lookPath finds prog on the PATH of env (or the tool's own).
func lookPath(prog string, env []string) (string, error) {
	if strings.Contains(prog, "/") {
		return prog, nil
	}
	path := os.Getenv("PATH")
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		f := filepath.Join(dir, prog)
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return f, nil
		}
	}
	return "", fmt.Errorf("sandbox: %s is not on the PATH", prog)
}

// Helper turns this process into a sandboxed program when it was started
// by a Runner (or into a probe of the sandbox, for Runner.Verify), and
// returns at once otherwise. Call it first thing in main.
func Helper() {
	if _, ok := os.LookupEnv(envPIDNSTry); ok {
		if err := mountProc(""); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if _, ok := os.LookupEnv(envHideProcTry); ok {
		if _, err := hideProc(Policy{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if own, ok := os.LookupEnv(envProbeFork); ok {
		os.Exit(probeFork(own == "true"))
	}
	if data, ok := os.LookupEnv(envProbe); ok {
		if _, helper := os.LookupEnv(envPolicy); !helper {
			// The sandbox's program: the helper has been and gone.
			os.Exit(probe(data))
		}
	}
	data, ok := os.LookupEnv(envPolicy)
	if !ok {
		return
	}
	os.Unsetenv(envPolicy)
	if err := enter(data); err != nil {
		fmt.Fprintf(os.Stderr, "lessons sandbox: %v\n", err)
		os.Exit(exitHelper)
	}
}

// lowerPriority sets this thread's nice value to nice (at most 19) where
// it is below that, before the program: it and its children inherit it.
// A grader already running nicer (a batch queue, nice -n 15) keeps its
// own: raising a priority needs a privilege a grader need not have, and
// asking for it failed every sandboxed build.
func lowerPriority(nice int) error {
	if nice <= 0 {
		return nil
	}
	nice = min(nice, 19)
	// The system call answers 20 - nice, so that no answer is negative.
	raw, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		return fmt.Errorf("reading the priority: %w", err)
	}
	if 20-raw >= nice {
		return nil
	}
	if err := unix.Setpriority(unix.PRIO_PROCESS, 0, nice); err != nil {
		return fmt.Errorf("lowering the priority to nice %d: %w", nice, err)
	}
	return nil
}

func enter(data string) error {
	// The priority is the calling thread's, and the program keeps that of
	// the thread that calls exec: both on one thread.
	runtime.LockOSThread()
	var p Policy
	if err := json.Unmarshal([]byte(data), &p); err != nil {
		return fmt.Errorf("bad policy: %w", err)
	}
	if len(os.Args) < 2 {
		return errors.New("no program to run")
	}
	if p.PIDNS {
		return initRun(p)
	}
	if p.HideProc {
		shm, err := hideProc(p)
		if err != nil {
			return err
		}
		p.ownShm(shm)
	} else if p.Veil != "" && os.Geteuid() == 0 {
		// A program run as root, with no mount namespace from the
		// Runner: this thread (it execs the program) takes one of its
		// own for the veil alone.
		if err := unix.Unshare(unix.CLONE_NEWNS); err == nil {
			if unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "") == nil {
				_ = undoing(p.Veil, veil(p))
			}
		}
	}
	if err := setLimits(p.Limits); err != nil {
		return err
	}
	if err := lowerPriority(p.Nice); err != nil {
		return err
	}
	abi, err := restrictFiles(p)
	if err != nil {
		return err
	}
	// Landlock refuses pathname sockets outside the folders from ABI 9 on
	// (abstract ones from 6): before that, the filter keeps the program
	// from every socket server.
	f := filter{trace: p.Inner == nil, signals: p.OwnSignals && abi < 6, self: os.Getpid(), noWriteExec: p.NoWriteExec}
	if abi < 9 && !p.UnixSockets {
		f.unixSockets, f.unixAll = !p.Network, p.Network
	}
	if err := f.install(); err != nil {
		return err
	}
	if err := closeInherited(p); err != nil {
		return err
	}
	if p.Inner != nil {
		inner, err := json.Marshal(p.Inner)
		if err != nil {
			return err
		}
		os.Setenv(envPolicy, string(inner))
	}
	restoreLoaderEnv()
	if err := execve(os.Args[1], os.Args[1:], os.Environ()); err != nil {
		return fmt.Errorf("starting %s: %w", os.Args[1], err)
	}
	return nil
}

// closeRangeCloexec is CLOSE_RANGE_CLOEXEC (Linux 5.11).
const closeRangeCloexec = 1 << 2

// closeInherited marks every descriptor above 2 but the policy's KeepFDs
// (from 3 on) close-on-exec, and those of p.Hide whatever KeepFDs says:
// they close when the program starts. Marked, not closed: the Go
// runtime of this helper still uses its own until the exec.
func closeInherited(p Policy) error {
	if p.KeepFDs != AllFDs {
		first := uint(3 + max(p.KeepFDs, 0))
		if err := unix.CloseRange(first, ^uint(0), closeRangeCloexec); err != nil {
			// Before 5.11: one by one.
			for _, fd := range openFDs() {
				if uint(fd) >= first {
					if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && err != unix.EBADF {
						return fmt.Errorf("closing descriptor %d: %w", fd, err)
					}
				}
			}
		}
	}
	hide := realPaths(p.Hide)
	for _, fd := range openFDs() {
		if fd <= 2 || len(hide) == 0 {
			continue
		}
		target, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
		if err != nil {
			continue
		}
		target = strings.TrimSuffix(target, " (deleted)")
		for _, h := range hide {
			if target == h || strings.HasPrefix(target, h+"/") {
				if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
					return fmt.Errorf("closing descriptor %d (%s): %w", fd, target, err)
				}
			}
		}
	}
	return nil
}

// openFDs lists this process's open descriptors.
func openFDs() []int {
	ents, _ := os.ReadDir("/proc/self/fd")
	var fds []int
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil {
			fds = append(fds, fd)
		}
	}
	return fds
}

func setLimits(l Limits) error {
	for _, lim := range []struct {
		name     string
		resource int
		value    uint64
	}{
		{"CPU time", unix.RLIMIT_CPU, l.CPU},
		{"data memory", unix.RLIMIT_DATA, l.Memory},
		{"processes", unix.RLIMIT_NPROC, l.Procs},
		{"file size", unix.RLIMIT_FSIZE, l.FileSize},
		{"open files", unix.RLIMIT_NOFILE, l.Files},
	} {
		if lim.value == 0 {
			continue
		}
		v := lim.value
		if lim.resource == unix.RLIMIT_NPROC && os.Geteuid() != 0 && os.Getuid() != 0 {
			// Shared with the user's other processes: count those too.
			v += uint64(processesOf(os.Getuid()))
		}
		var cur unix.Rlimit
		if err := unix.Getrlimit(lim.resource, &cur); err != nil {
			return fmt.Errorf("reading the %s limit: %w", lim.name, err)
		}
		if cur.Max != unix.RLIM_INFINITY && cur.Max < v {
			v = cur.Max // never raise
		}
		if err := unix.Setrlimit(lim.resource, &unix.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("setting the %s limit to %d: %w", lim.name, v, err)
		}
	}
	return nil
}

// processesOf counts the processes (threads included) of uid.
func processesOf(uid int) int {
	n := 0
	for _, pid := range pidsOf(uid) {
		tasks, _ := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
		n += max(len(tasks), 1)
	}
	return n
}

// realPaths resolves each path's links (a folder allowed by a link's
// name would open where the link points, and a link beside it could be
// anything); paths that do not exist are left out.
func realPaths(paths []string) []string {
	var out []string
	for _, p := range paths {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			if r, err = filepath.Abs(r); err == nil {
				out = append(out, r)
			}
		}
	}
	return out
}

// mpsPipes is the folder of the CUDA MPS server's sockets.
func mpsPipes() string {
	if d := os.Getenv("CUDA_MPS_PIPE_DIRECTORY"); d != "" {
		return d
	}
	return "/tmp/nvidia-mps"
}

// landlockConfigs are the ABIs a Policy's Landlock may cap at.
var landlockConfigs = []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// LandlockABI is the Landlock ABI this kernel has (0: none, Linux
// before 5.13 or Landlock left out of the kernel).
func LandlockABI() int {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 0 {
		return 0
	}
	return abi
}

// restrictFiles applies Landlock, where the kernel has it: read and
// execute in the system's folders and p.Read, everything in p.Dir, write
// to a few device files (the GPU's among them), no TCP or UDP, no
// signals, abstract sockets or pathname sockets out of the sandbox. It
// returns the ABI in force (0 for none).
func restrictFiles(p Policy) (int, error) {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || p.Landlock < 0 {
		return 0, nil // no Landlock: the other limits still hold
	}
	if p.Landlock > 0 && p.Landlock < abi {
		abi = p.Landlock
	}
	abi = min(abi, len(landlockConfigs))
	devs := devicesOf(p)
	var ro, rofiles []string
	for _, r := range realPaths(append(append([]string{}, SystemRead...), p.Read...)) {
		st, err := os.Stat(r)
		if err != nil {
			continue
		}
		if st.IsDir() {
			ro = append(ro, r)
		} else {
			rofiles = append(rofiles, r)
		}
	}
	rw := realPaths(append([]string{p.Dir}, p.Write...))
	if p.OwnShm {
		rw = append(rw, realPaths([]string{"/dev/shm"})...)
	}
	if len(rw) == 0 {
		return 0, fmt.Errorf("landlock: the folder %s is not there", p.Dir)
	}
	dirs := devRead
	if p.NoDevices {
		dirs = []string{"/dev/shm"}
	}
	cfg := landlockConfigs[abi-1]
	if p.Network {
		cfg.HandledAccessNet = 0 // files and scopes still
	}
	// Its own folders' sockets it may reach (ABI 9 on); no others.
	own := landlock.RWDirs(rw...).WithResolveUnix()
	var runs []landlock.Rule
	if p.NoWriteExec {
		// Nothing it writes there is started (execve): only the program
		// itself. (Landlock does not see mmap's PROT_EXEC: a file the
		// program wrote is mapped executable no more where its folder is
		// a noexec file system of its own, owndir.go.)
		own = landlock.PathAccess(cfg.HandledAccessFS&ownNoExec, rw...)
		if prog := realPaths(os.Args[1:2]); len(prog) > 0 {
			runs = append(runs, landlock.PathAccess(cfg.HandledAccessFS&llsys.AccessFSExecute, prog...))
		}
	}
	rules := []landlock.Rule{
		landlock.RODirs(append(ro, realPaths(dirs)...)...),
		// /dev listed (the driver looks for its devices), not opened.
		landlock.PathAccess(llsys.AccessFSReadDir, "/dev"),
		own,
		// Its own /proc entries: the CUDA driver writes there (it names
		// its threads), and fails with "OS call failed" if it cannot.
		landlock.RWDirs(procWritable(p)),
		landlock.RWFiles(realPaths(devs)...).WithIoctlDev(),
	}
	if len(rofiles) > 0 {
		rules = append(rules, landlock.ROFiles(rofiles...))
	}
	if mps := realPaths([]string{mpsPipes()}); abi >= 9 && len(mps) > 0 {
		// An MPS server shares the GPU: where one runs, CUDA programs
		// must reach it.
		rules = append(rules, landlock.RODirs(mps...).WithResolveUnix())
	}
	rules = append(rules, runs...)
	if err := cfg.BestEffort().Restrict(rules...); err != nil {
		return 0, fmt.Errorf("landlock: %w", err)
	}
	return abi, nil
}

// ownNoExec are the rights in the program's own folders under
// NoWriteExec: RWDirs' and its sockets', but execute.
const ownNoExec = llsys.AccessFSWriteFile | llsys.AccessFSReadFile | llsys.AccessFSReadDir | llsys.AccessFSRemoveDir |
	llsys.AccessFSRemoveFile | llsys.AccessFSMakeChar | llsys.AccessFSMakeDir | llsys.AccessFSMakeReg | llsys.AccessFSMakeSock |
	llsys.AccessFSMakeFifo | llsys.AccessFSMakeBlock | llsys.AccessFSMakeSym | llsys.AccessFSTruncate | llsys.AccessFSResolveUnix

// devicesOf are the device files p's program may open: those the Runner
// chose, or, for a policy that none chose (an Inner one from before),
// the harmless ones and every GPU's.
func devicesOf(p Policy) []string {
	if p.Devices != nil {
		return p.Devices
	}
	devs, _ := devicesFor(p.NoDevices, nil)
	return devs
}

// procWritable is the part of /proc the program may write. Where the
// program runs under a user of its own (a root grader's worker user) or
// in a pid namespace whose /proc shows only its own processes, that is
// all of /proc: nothing there it can write belongs to anyone else (the
// kernel's own files are root's), and a child it forks (a second CUDA
// process, as day 73's pool shared between processes) finds its own
// entry writable too. Otherwise only the entry of its own pid (resolved
// now; exec keeps the pid): a child of it cannot start CUDA then.
func procWritable(p Policy) string {
	if p.OwnProc || (p.UID != 0 && os.Geteuid() == p.UID) {
		return "/proc"
	}
	return "/proc/self"
}

// Own hands dir and everything in it to uid:gid, so that a program running
// as that user can write its scratch folder. Without root it does nothing.
func Own(dir string, uid, gid int) error {
	if os.Geteuid() != 0 || uid == 0 {
		return nil
	}
	return filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, uid, gid)
	})
}

// loaderVars are the dynamic loader's variables that load code into a
// process. The helper is a program too: what they name is meant for the
// sandboxed program alone, so they travel to it under other names and are
// set again just before the exec. (The statistics library, preloaded into
// the helper, would take the run's channel and key and send its frames
// from the helper, leaving the program none.)
var loaderVars = []string{"LD_PRELOAD", "LD_AUDIT"}

const loaderCarry = "LESSONS_SANDBOX_"

func hideLoaderEnv(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if slices.Contains(loaderVars, name) {
			kv = loaderCarry + kv
		}
		out = append(out, kv)
	}
	return out
}

func restoreLoaderEnv() {
	for _, name := range loaderVars {
		if v, ok := os.LookupEnv(loaderCarry + name); ok {
			os.Unsetenv(loaderCarry + name)
			os.Setenv(name, v)
		}
	}
}
