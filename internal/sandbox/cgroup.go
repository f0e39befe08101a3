package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Cgroups holds a control group (cgroup v2) of this process's making,
// under which every sandboxed program gets a group of its own: at most
// Policy.CPUs cores, Policy.Memory bytes of memory and Policy.Procs
// processes, all counted for the program and its children together, and
// every process in it killed at the end, whatever session or process group
// it moved to. Without it a fork bomb or a spinning program slows every
// other build and run of the machine (measured: a class's builds took 5x
// longer while four fork bombs ran).
type Cgroups struct {
	dir string
	n   atomic.Int64
}

// cgroupRoot is where the cgroup v2 hierarchy is mounted; tests change it.
var cgroupRoot = "/sys/fs/cgroup"

// ErrNoCgroups says why the machine gives no control groups of our own.
var ErrNoCgroups = errors.New("no cgroup v2 with the cpu and pids controllers that this process may write")

// OpenCgroups makes a group for this process's sandboxed programs, under
// the nearest group above this process's own that hands the cpu and pids
// controllers (and memory, where it has it) down and that this process may
// write; and tries it with a program. It fails with ErrNoCgroups (wrapped)
// where there is none, as on cgroup v1 or in a container without
// delegation: the rlimits still hold there.
func OpenCgroups() (*Cgroups, error) {
	own, err := ownCgroup()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoCgroups, err)
	}
	name := fmt.Sprintf("%s%d-%d", groupPrefix(), os.Getpid(), opened.Add(1))
	var tried []string
	for dir := filepath.Dir(own); ; dir = filepath.Dir(dir) {
		full := filepath.Join(cgroupRoot, dir)
		if ctl, err := os.ReadFile(filepath.Join(full, "cgroup.subtree_control")); err == nil && hasControllers(ctl, "cpu", "pids") {
			removeStale(full)
			c := &Cgroups{dir: filepath.Join(full, name)}
			err := os.Mkdir(c.dir, 0o755)
			if err == nil {
				if err = c.setup(); err == nil {
					return c, nil
				}
				c.Close()
			}
			tried = append(tried, fmt.Sprintf("%s: %v", full, err))
		}
		if dir == "/" || dir == "." {
			break
		}
	}
	if len(tried) > 0 {
		return nil, fmt.Errorf("%w (%s)", ErrNoCgroups, strings.Join(tried, "; "))
	}
	return nil, ErrNoCgroups
}

// groupPrefix starts the names of this pid namespace's graders' groups:
// "lessons-" and the namespace's inode, so that a grader only ever takes
// for stale the groups of pids it can see.
func groupPrefix() string {
	ns, err := os.Readlink("/proc/self/ns/pid") // pid:[4026531836]
	if err != nil {
		return "lessons-"
	}
	return "lessons-" + strings.Trim(strings.TrimPrefix(ns, "pid:"), "[]") + "-"
}

// removeStale removes the groups that a grader killed with SIGKILL left
// in parent, and kills the programs still in them.
func removeStale(parent string) {
	prefix := groupPrefix()
	stale, _ := filepath.Glob(filepath.Join(parent, prefix+"*"))
	for _, dir := range stale {
		rest := strings.TrimPrefix(filepath.Base(dir), prefix) // PID or PID-N
		pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
		if err != nil || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue // not ours, or its grader is still running
		}
		groups, _ := filepath.Glob(filepath.Join(dir, "[0-9]*"))
		for _, g := range groups {
			(&cgroup{dir: g, fd: -1}).close()
		}
		os.Remove(dir)
	}
}

// ownCgroup is this process's group in the cgroup v2 hierarchy (the
// "0::" line of /proc/self/cgroup), checked to be mounted at cgroupRoot.
func ownCgroup() (string, error) {
	if _, err := os.Stat(filepath.Join(cgroupRoot, "cgroup.controllers")); err != nil {
		return "", fmt.Errorf("%s is not a cgroup v2 mount", cgroupRoot)
	}
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if p, ok := strings.CutPrefix(sc.Text(), "0::"); ok && strings.HasPrefix(p, "/") {
			return p, nil
		}
	}
	return "", errors.New("this process is in no cgroup v2 group")
}

func hasControllers(list []byte, want ...string) bool {
	have := strings.Fields(string(list))
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// opened numbers the groups this process makes.
var opened atomic.Int64

// setup hands the new group's controllers down to the programs'
// groups, and starts a program in one to see that it works.
func (c *Cgroups) setup() error {
	avail, err := os.ReadFile(filepath.Join(c.dir, "cgroup.controllers"))
	if err != nil {
		return err
	}
	var enable []string
	for _, ctl := range []string{"cpu", "memory", "pids"} {
		if hasControllers(avail, ctl) {
			enable = append(enable, "+"+ctl)
		}
	}
	if err := os.WriteFile(filepath.Join(c.dir, "cgroup.subtree_control"), []byte(strings.Join(enable, " ")), 0); err != nil {
		return fmt.Errorf("handing %s down: %w", strings.Join(enable, " "), err)
	}
	g, err := c.group(Policy{Limits: Limits{Procs: 4, CPUs: 1}})
	if err != nil {
		return err
	}
	defer g.close()
	cmd := exec.Command("/bin/true")
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: g.fd}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("starting a program in a group: %w", err)
	}
	return nil
}

// Close removes the group; the programs' groups in it must be closed.
func (c *Cgroups) Close() error {
	if c == nil {
		return nil
	}
	return os.Remove(c.dir)
}

// cgroup is one program's group.
type cgroup struct {
	dir string
	fd  int
}

// group makes a program's group with p's limits.
func (c *Cgroups) group(p Policy) (*cgroup, error) {
	dir := filepath.Join(c.dir, strconv.FormatInt(c.n.Add(1), 10))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("sandbox: a cgroup: %w", err)
	}
	g := &cgroup{dir: dir, fd: -1}
	set := func(file, value string, must bool) error {
		err := os.WriteFile(filepath.Join(dir, file), []byte(value), 0)
		if err != nil && (must || !os.IsNotExist(err)) {
			return fmt.Errorf("sandbox: cgroup %s = %s: %w", file, value, err)
		}
		return nil
	}
	var errs []error
	if p.CPUs > 0 {
		const period = 100000 // µs
		errs = append(errs, set("cpu.max", fmt.Sprintf("%d %d", int64(p.CPUs*period), period), true))
	}
	if p.Procs > 0 {
		errs = append(errs, set("pids.max", strconv.FormatUint(p.Procs, 10), true))
	}
	if p.Memory > 0 {
		// Absent without the memory controller; no swapping around it.
		errs = append(errs, set("memory.max", strconv.FormatUint(p.Memory, 10), false), set("memory.swap.max", "0", false))
	}
	if err := errors.Join(errs...); err != nil {
		os.Remove(dir)
		return nil, err
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	g.fd = fd
	return g, nil
}

// YieldWeight is the cpu.weight of a program past its Policy.Yield: a
// fifth of the default 100.
const YieldWeight = 20

// yield lowers the group's share of the CPU to YieldWeight.
func (g *cgroup) yield() {
	_ = os.WriteFile(filepath.Join(g.dir, "cpu.weight"), []byte(strconv.Itoa(YieldWeight)), 0)
}

// outOfMemory reports whether the kernel killed a process of the group
// for passing memory.max.
func (g *cgroup) outOfMemory() bool {
	data, _ := os.ReadFile(filepath.Join(g.dir, "memory.events"))
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "oom_kill" && f[1] != "0" {
			return true
		}
	}
	return false
}

// kill sends SIGKILL to every process in the group: at once with
// cgroup.kill (Linux 5.14), new forks included; before it, to each process
// cgroup.procs lists. It reports whether cgroup.kill did it.
func (g *cgroup) kill() bool {
	if os.WriteFile(filepath.Join(g.dir, "cgroup.kill"), []byte("1"), 0) == nil {
		return true
	}
	procs, _ := os.ReadFile(filepath.Join(g.dir, "cgroup.procs"))
	for _, f := range strings.Fields(string(procs)) {
		if pid, err := strconv.Atoi(f); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return false
}

// close kills every process left in the group and removes it.
func (g *cgroup) close() {
	if g.fd >= 0 {
		unix.Close(g.fd)
		g.fd = -1
	}
	all := g.kill()
	for range 500 {
		if err := os.Remove(g.dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		if !all {
			g.kill() // without cgroup.kill: the forks made since
		}
		time.Sleep(10 * time.Millisecond)
	}
}
