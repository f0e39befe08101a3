// Package sandbox runs untrusted programs (a student's build and run, when an
// instructor grades a class) inside limits: CPU time, memory, processes,
// file size and open files (rlimits); no writes outside one folder and no
// reads outside the system's own folders and that one (Landlock); no
// network (a new network namespace where the OS allows it, and Landlock's
// TCP rules); and, when the tool runs as root, a user of its own, so that
// the process limit counts that program's processes alone.
//
// A sandboxed program is started through this very binary: the child first
// runs Helper, which applies the rlimits and Landlock to itself and then
// replaces itself with the program. Every binary that starts sandboxed
// programs must call Helper first thing in main (or TestMain).
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
	"sort"
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
	// Network is allowed when set; by default the program has none.
	Network bool `json:"network,omitempty"`
	// Nice lowers the program's CPU priority (1 to 19, as nice(1) takes
	// it), so that it yields the cores to work that others wait on.
	Nice int `json:"nice,omitempty"`
	// Yield, with a cgroup, is how long the program runs with its full
	// share of the CPU; after it, its cgroup's cpu.weight drops to
	// YieldWeight, so that a program still running (most often an endless
	// loop, waiting for its time limit) yields the cores to others that
	// need them, and still has them when nobody else does. 0 never.
	Yield time.Duration `json:"yield,omitempty"`
	// Landlock caps the Landlock ABI used (1 to 6; 0 is the best the
	// kernel has, -1 none), to find which restriction a program trips on.
	Landlock int `json:"landlock,omitempty"`
}

// SystemRead are the folders every program may read: the system's
// programs and libraries, its settings, and the kernel's views. The user's
// home, /tmp, /root, /srv, /mnt and /work are left out.
var SystemRead = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc", "/sys", "/dev", "/run/nvidia-persistenced"}

// deviceRW are the device files a program may write: the GPU's, and the
// harmless ones.
var deviceRW = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

const envPolicy = "LESSONS_SANDBOX_POLICY"

// exitHelper is the status of a helper that could not set the sandbox up.
const exitHelper = 125

// Report says which protections this machine gives.
type Report struct {
	Landlock int  // the Landlock ABI version, 0 when there is none
	Root     bool // programs run as users of their own, and the process limit is theirs
	NetNS    bool // programs get a network namespace of their own
	// Cgroup is set when each program gets a control group of its own
	// (its caller opened Cgroups); CPUs are its cores (BuildCPUs, when
	// set, a build's).
	Cgroup    bool
	CPUs      float64
	BuildCPUs float64
	// NoCgroup says why there is none, when there is none.
	NoCgroup string
	// As, when set, names the one user the program runs as (lessons
	// sandbox run by root without --uid), instead of advice about users.
	As string
}

func (r Report) String() string { return r.words(false) }

// Brief says the same in fewer words (for lessons doctor).
func (r Report) Brief() string { return r.words(true) }

func (r Report) words(brief bool) string {
	say := func(long, short string) string {
		if brief {
			return short
		}
		return long
	}
	var parts []string
	if r.Landlock > 0 {
		parts = append(parts, fmt.Sprintf("Landlock v%d", r.Landlock)+say(" (files outside the scratch folder are neither readable nor writable; no TCP)", ""))
	} else {
		parts = append(parts, "no Landlock "+say("(student code can read what the grader's user can read)", "(students' programs could read other files)"))
	}
	switch {
	case r.As != "":
		parts = append(parts, "runs as "+r.As)
	case r.Root:
		parts = append(parts, say("a user of its own per worker", "a user per worker"))
	default:
		parts = append(parts, say("the grader's own user (run as root to give each worker a user of its own)", "the grader's user (grade as root for a user per worker)"))
	}
	if r.NetNS {
		parts = append(parts, "no network"+say(" (a namespace of its own)", ""))
	}
	if r.Cgroup {
		cores := cores(r.CPUs)
		if r.BuildCPUs > 0 && r.BuildCPUs != r.CPUs {
			cores += " (a build " + fmt.Sprint(r.BuildCPUs) + ")"
		}
		parts = append(parts, say(fmt.Sprintf("a cgroup of its own (%s, memory and processes counted with its children's; all killed at the end)", cores), "cgroups (cores, memory, processes)"))
	} else {
		why := r.NoCgroup
		if why == "" {
			why = "it needs cgroup v2 that this user may write"
		}
		parts = append(parts, say(fmt.Sprintf("no cgroup of its own (%s), so a runaway program slows the others", why), fmt.Sprintf("no cgroups (%s)", why)))
	}
	if !brief {
		parts = append(parts, "limits on CPU time, data memory, processes, file size, open files and output")
	}
	return strings.Join(parts, "; ")
}

func cores(n float64) string {
	if n == 1 {
		return "1 core"
	}
	return fmt.Sprintf("%g cores", n)
}

// Probe says what this machine supports.
func Probe() Report {
	r := Report{Root: os.Geteuid() == 0}
	if v, err := llsys.LandlockGetABIVersion(); err == nil {
		r.Landlock = v
	}
	r.NetNS = netnsOK()
	return r
}

// canNetNS tries a child in a network namespace of its own.
func canNetNS() bool {
	cmd := exec.Command("/bin/true")
	if _, err := os.Stat(cmd.Path); err != nil {
		return false
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: netFlags()}
	return cmd.Run() == nil
}

func netFlags() uintptr {
	if os.Geteuid() == 0 {
		return syscall.CLONE_NEWNET
	}
	return 0 // a user namespace would change the user the GPU driver sees; Landlock's TCP rules stay
}

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
	data, err := json.Marshal(p)
	if err != nil {
		return nil, err
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
	spec.Env = append(env[:len(env):len(env)], envPolicy+"="+string(data))
	spec.Argv = append([]string{self, prog}, spec.Argv[1:]...)
	var cg *cgroup
	if r.Cgroups != nil {
		if cg, err = r.Cgroups.group(p); err != nil {
			return nil, err
		}
		spec.Stop = func() { cg.kill() }
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
		a.Cloneflags |= netFlagsFor(p)
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

func netFlagsFor(p Policy) uintptr {
	if p.Network || !netnsOK() {
		return 0
	}
	return netFlags()
}

// netnsOK is canNetNS, tried once per process.
var netnsOK = sync.OnceValue(canNetNS)

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
// by a Runner, and returns at once otherwise. Call it first thing in main.
func Helper() {
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
	if err := setLimits(p.Limits); err != nil {
		return err
	}
	if p.Nice > 0 {
		// Before the program: it and its children inherit it.
		if err := unix.Setpriority(unix.PRIO_PROCESS, 0, min(p.Nice, 19)); err != nil {
			return fmt.Errorf("lowering the priority: %w", err)
		}
	}
	if err := restrictFiles(p); err != nil {
		return err
	}
	env := os.Environ()
	return syscall.Exec(os.Args[1], os.Args[1:], env)
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

// restrictFiles applies Landlock, where the kernel has it: read and
// execute in the system's folders and p.Read, everything in p.Dir, write
// to a few device files (the GPU's among them), no TCP, no signals or
// abstract sockets out of the sandbox.
func restrictFiles(p Policy) error {
	if _, err := llsys.LandlockGetABIVersion(); err != nil || p.Landlock < 0 {
		return nil // no Landlock: the other limits still hold
	}
	var devs []string
	for _, d := range deviceRW {
		if _, err := os.Stat(d); err == nil {
			devs = append(devs, d)
		}
	}
	gpus, _ := filepath.Glob("/dev/nvidia*")
	sort.Strings(gpus)
	for _, g := range gpus {
		if st, err := os.Stat(g); err == nil && !st.IsDir() {
			devs = append(devs, g)
		}
	}
	var ro, rofiles []string
	for _, r := range append(append([]string{}, SystemRead...), p.Read...) {
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
	rules := []landlock.Rule{
		landlock.RODirs(ro...),
		landlock.RWDirs(append([]string{p.Dir}, p.Write...)...),
		// Its own /proc entry (resolved now, and exec keeps the pid): the
		// CUDA driver writes there, and fails with "OS call failed" if it
		// cannot.
		landlock.RWDirs("/proc/self"),
		landlock.RWFiles(devs...).WithIoctlDev(),
	}
	if len(rofiles) > 0 {
		rules = append(rules, landlock.ROFiles(rofiles...))
	}
	cfg := landlock.V6
	if p.Landlock > 0 && p.Landlock < 6 {
		cfg = []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5}[p.Landlock-1]
	}
	cfg = cfg.BestEffort()
	if p.Network {
		return cfg.RestrictPaths(rules...)
	}
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return nil
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
