package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/cudalessons/lessons/internal/runner"
)

// The test binary is both the grader and the untrusted programs: started
// with SANDBOX_TEST_MODE, it behaves as one of them (after Helper has put
// it in its sandbox).
func TestMain(m *testing.M) {
	Helper()
	if req := os.Getenv("SANDBOX_TEST_GRADER"); req != "" {
		os.Exit(grader(req))
	}
	if mode := os.Getenv("SANDBOX_TEST_MODE"); mode != "" {
		if code, ok := attack(mode, os.Args[1:]); ok {
			os.Exit(code)
		}
		os.Exit(misbehave(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// misbehave is what an untrusted program does; it prints what happened.
func misbehave(mode string, args []string) int {
	switch mode {
	case "write": // write args[0]
		err := os.WriteFile(args[0], []byte("pwned\n"), 0o644)
		fmt.Println("write:", err)
	case "read": // read args[0]
		data, err := os.ReadFile(args[0])
		fmt.Printf("read: %q %v\n", data, err)
	case "fork": // start processes until refused
		n := 0
		for ; n < 2000; n++ {
			cmd := exec.Command("/bin/sleep", "30")
			if err := cmd.Start(); err != nil {
				fmt.Printf("fork: refused after %d: %v\n", n, err)
				return 0
			}
		}
		fmt.Printf("fork: started %d\n", n)
	case "escape": // a child that leaves the process group and lives on
		cmd := exec.Command("/bin/sleep", "60")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		err := cmd.Start()
		fmt.Println("escape:", err)
		if err == nil {
			fmt.Println("child:", cmd.Process.Pid)
		}
	case "cgroup": // the limits of its own cgroup
		own, err := ownCgroup()
		fmt.Println("cgroup:", own, err)
		for _, f := range []string{"cpu.max", "pids.max", "memory.max"} {
			data, err := os.ReadFile(filepath.Join(cgroupRoot, own, f))
			fmt.Printf("%s: %s %v\n", f, strings.TrimSpace(string(data)), err)
		}
	case "weight": // its cgroup's cpu.weight now, and after args[0]
		own, _ := ownCgroup()
		read := func() string {
			data, err := os.ReadFile(filepath.Join(cgroupRoot, own, "cpu.weight"))
			return fmt.Sprint(strings.TrimSpace(string(data)), " ", err)
		}
		fmt.Println("weight at start:", read())
		d, _ := time.ParseDuration(args[0])
		time.Sleep(d)
		fmt.Println("weight later:", read())
	case "shm": // touch args[0] MiB of shared memory, which RLIMIT_DATA does not count
		var n int
		fmt.Sscan(args[0], &n)
		mem, err := unix.Mmap(-1, 0, n<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
		if err != nil {
			fmt.Println("shm:", err)
			return 1
		}
		for i := 0; i < len(mem); i += 4096 {
			mem[i] = 1
		}
		fmt.Printf("shm: touched %d MiB\n", n)
	case "forkescape": // sleepers in sessions of their own, holding stdout, until refused; then spin
		for i := 0; i < 2000; i++ {
			cmd := exec.Command("/bin/sleep", "60")
			cmd.Stdout = os.Stdout
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if cmd.Start() != nil {
				break
			}
		}
		for {
		}
	case "spin":
		for {
		}
	case "await": // wait (20 s at most) for the file args[0], then say so
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if _, err := os.Stat(args[0]); err == nil {
				fmt.Println("await: woke")
				return 0
			}
		}
		fmt.Println("await: no file")
	case "sleepchild": // wait for a child that sleeps
		exec.Command("/bin/sleep", "60").Run()
	case "spinchild": // wait for a child that spins in its own code
		exec.Command("/bin/sh", "-c", "while :; do :; done").Run()
	case "bigfile": // write a file of args[0] MiB
		f, err := os.Create("big")
		if err != nil {
			fmt.Println("bigfile:", err)
			return 1
		}
		buf := make([]byte, 1<<20)
		var n int
		fmt.Sscan(args[0], &n)
		for i := 0; i < n; i++ {
			if _, err := f.Write(buf); err != nil {
				fmt.Printf("bigfile: stopped at %d MiB: %v\n", i, err)
				return 1
			}
		}
		fmt.Println("bigfile: done")
	case "connect":
		c, err := net.DialTimeout("tcp", args[0], 2*time.Second)
		if err == nil {
			c.Close()
		}
		fmt.Println("connect:", err)
	case "env":
		fmt.Println("env:", os.Getenv(envPolicy) == "", os.Getuid())
	case "childproc": // a forked child names itself through its own /proc entry, as the CUDA driver does
		err := exec.Command("/bin/sh", "-c", "printf child > /proc/self/comm").Run()
		fmt.Println("childproc:", err)
	case "nice": // the priority of this process and of a child
		self, _ := unix.Getpriority(unix.PRIO_PROCESS, 0)
		out, err := exec.Command("/bin/sh", "-c", "cut -d' ' -f19 /proc/$$/stat").Output()
		fmt.Printf("nice: %d %s %v\n", 20-self, strings.TrimSpace(string(out)), err)
	}
	return 0
}

// fixture is a sandbox for one test: its scratch folder, a second folder
// (another student's), and a copy of the test binary any user can run.
type fixture struct {
	dir, other, self string
	pol              Policy
	cgroups          *Cgroups
}

// withCgroups gives the fixture's programs cgroups, or skips the test
// where this machine lets the test make none.
func (f *fixture) withCgroups(t *testing.T) {
	t.Helper()
	c, err := OpenCgroups()
	if err != nil {
		t.Skipf("no cgroups here: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("the grade run's cgroup stays: %v", err)
		}
	})
	f.cgroups = c
}

func setup(t *testing.T) *fixture {
	t.Helper()
	base, err := os.MkdirTemp("", "sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	f := &fixture{dir: filepath.Join(base, "alice"), other: filepath.Join(base, "bob"), self: filepath.Join(base, "bin", "prog")}
	for _, d := range []string{f.dir, f.other, filepath.Dir(f.self)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe, _ := os.Executable()
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.self, data, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(f.other, "solution.cu"), []byte("bob's work\n"), 0o644)
	f.pol = Policy{Limits: DefaultLimits, Dir: f.dir, Read: []string{filepath.Dir(f.self)}}
	if os.Geteuid() == 0 {
		// A user with no process left: a fork bomb's zombies count
		// against the next test's process limit until they are reaped.
		uid := 61999
		for uid > 61900 && Busy(uid) {
			uid--
		}
		f.pol.UID, f.pol.GID = uid, uid
		if err := Own(f.dir, f.pol.UID, f.pol.GID); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f *fixture) run(t *testing.T, mode string, timeout time.Duration, args ...string) (string, *runner.Result) {
	t.Helper()
	var out bytes.Buffer
	res, err := Runner{Policy: f.pol, Self: f.self, Cgroups: f.cgroups}.Run(context.Background(), runner.Spec{
		Argv: append([]string{f.self}, args...), Dir: f.dir, Timeout: timeout, MaxOutput: 1 << 16,
		Env: []string{"SANDBOX_TEST_MODE=" + mode, "PATH=/usr/bin:/bin"},
	}, &out)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), res
}

func needLandlock(t *testing.T) {
	if v, err := llsys.LandlockGetABIVersion(); err != nil || v == 0 {
		t.Skip("this kernel has no Landlock")
	}
}

func TestPolicyNotInherited(t *testing.T) {
	f := setup(t)
	out, res := f.run(t, "env", 10*time.Second)
	if !res.OK() || !strings.HasPrefix(out, "env: true") {
		t.Fatalf("%q %+v", out, res)
	}
	if os.Geteuid() == 0 && !strings.Contains(out, fmt.Sprint(f.pol.UID)) {
		t.Errorf("ran as %q, want uid %d", out, f.pol.UID)
	}
}

func TestWritesStayInside(t *testing.T) {
	needLandlock(t)
	f := setup(t)
	out, _ := f.run(t, "write", 10*time.Second, filepath.Join(f.dir, "ok.txt"))
	if !strings.Contains(out, "write: <nil>") {
		t.Errorf("writing its own folder: %q", out)
	}
	for _, target := range []string{filepath.Join(f.other, "solution.cu"), filepath.Join(os.TempDir(), "sandbox-pwned")} {
		out, _ := f.run(t, "write", 10*time.Second, target)
		if !strings.Contains(out, "permission denied") {
			t.Errorf("writing %s: %q", target, out)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(f.other, "solution.cu")); string(data) != "bob's work\n" {
		t.Errorf("bob's file is now %q", data)
	}
	if _, err := os.Stat(filepath.Join(os.TempDir(), "sandbox-pwned")); err == nil {
		os.Remove(filepath.Join(os.TempDir(), "sandbox-pwned"))
		t.Error("a file was written in /tmp")
	}
}

func TestReadsOtherStudentsDenied(t *testing.T) {
	needLandlock(t)
	f := setup(t)
	out, _ := f.run(t, "read", 10*time.Second, filepath.Join(f.other, "solution.cu"))
	if strings.Contains(out, "bob's work") || !strings.Contains(out, "permission denied") {
		t.Errorf("reading another student's file: %q", out)
	}
	out, _ = f.run(t, "read", 10*time.Second, "/etc/hostname")
	if strings.Contains(out, "permission denied") {
		t.Errorf("the system's files should stay readable: %q", out)
	}
}

// A child of the program writes its own /proc entry (the CUDA driver names
// its threads there, and a forked process that starts CUDA fails without
// it: day 73's pool shared between two processes).
func TestChildWritesItsProc(t *testing.T) {
	needLandlock(t)
	f := setup(t)
	if os.Geteuid() != 0 {
		if !usePIDNS(f.self) {
			t.Skip("a grader that is not root gets no pid namespace here: a child's /proc entry stays closed to it")
		}
	}
	out, res := f.run(t, "childproc", 10*time.Second)
	if !strings.Contains(out, "childproc: <nil>") {
		t.Errorf("a forked child could not write its /proc entry: %q %+v", out, res)
	}
}

func TestForkBombStopped(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the process limit is per user: it is exact only when workers run as users of their own (root)")
	}
	f := setup(t)
	f.pol.Procs = 20
	out, res := f.run(t, "fork", 20*time.Second)
	if !strings.Contains(out, "fork: refused after") {
		t.Fatalf("%q %+v", out, res)
	}
	// The whole group goes with the program: no sleep is left.
	n := 0
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if n = processesOf(f.pol.UID); n == 0 {
			break
		}
	}
	if n != 0 {
		t.Errorf("%d processes of uid %d left behind", n, f.pol.UID)
	}
}

func TestNothingOutlivesTheRun(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs workers with users of their own (root)")
	}
	f := setup(t)
	out, _ := f.run(t, "escape", 10*time.Second)
	if !strings.Contains(out, "escape: <nil>") {
		t.Fatal(out)
	}
	if pids := pidsOf(f.pol.UID); len(pids) != 0 {
		t.Errorf("processes %v of the worker's user outlived the run", pids)
	}
}

func TestCPULimit(t *testing.T) {
	f := setup(t)
	f.pol.CPU = 1
	start := time.Now()
	_, res := f.run(t, "spin", 30*time.Second)
	// Its time limit (30 s of the clock) is far beyond its CPU limit (1 s of
	// CPU): killed by the one, not the other, whatever else the machine runs.
	if res.OK() || res.TimedOut {
		t.Fatalf("a spinning program should die of its CPU limit: %+v after %s", res, time.Since(start))
	}
	if res.Signal.String() != "CPU time limit exceeded" && res.Signal.String() != "killed" {
		t.Errorf("signal %v", res.Signal)
	}
}

func TestNice(t *testing.T) {
	f := setup(t)
	f.pol.Nice = 12
	raw, _ := unix.Getpriority(unix.PRIO_PROCESS, 0)
	want := max(20-raw, 12) // a grader niced further keeps its own
	out, res := f.run(t, "nice", 10*time.Second)
	if !res.OK() || !strings.Contains(out, fmt.Sprintf("nice: %d %d <nil>", want, want)) {
		t.Fatalf("the program and its child should run at nice %d: %q %+v", want, out, res)
	}
}

// A grader already running nicer than the policy asks (a batch queue,
// nice -n 15) keeps its own: the program runs at 15, where asking for 10
// (a raise of priority, which a worker's user may not make) failed every
// sandboxed build (issue 40).
func TestNiceUnderANicerGrader(t *testing.T) {
	if _, err := exec.LookPath("nice"); err != nil {
		t.Skip("no nice(1) here")
	}
	f := setup(t)
	f.pol.Nice = 10
	data, _ := json.Marshal(graderRequest{Policy: f.pol, Self: f.self, Mode: "nice"})
	cmd := exec.Command("nice", "-n", "15", f.self)
	cmd.Env = []string{"SANDBOX_TEST_GRADER=" + string(data), "PATH=/usr/bin:/bin"}
	if os.Geteuid() == 0 {
		// Root may raise a priority; a grader as a user may not.
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}}}
		f.pol.UID, f.pol.GID = 0, 0
		os.Chown(f.dir, nobody, nobody)
		data, _ = json.Marshal(graderRequest{Policy: f.pol, Self: f.self, Mode: "nice"})
		cmd.Env[0] = "SANDBOX_TEST_GRADER=" + string(data)
	}
	raw, _ := unix.Getpriority(unix.PRIO_PROCESS, 0)
	want := min(20-raw+15, 19) // the tests may run niced themselves
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("nice: %d %d <nil>", want, want)) {
		t.Fatalf("under nice -n 15, the program should keep %d and run: %v\n%s", want, err, out)
	}
}

func TestCgroupLimits(t *testing.T) {
	f := setup(t)
	f.withCgroups(t)
	f.pol.CPUs, f.pol.Procs, f.pol.Memory = 1.5, 40, 1<<30
	out, res := f.run(t, "cgroup", 10*time.Second)
	for _, want := range []string{"cpu.max: 150000 100000 <nil>", "pids.max: 40 <nil>", "memory.max: 1073741824"} {
		if !strings.Contains(out, want) {
			t.Errorf("the program's cgroup should say %q:\n%s%+v", want, out, res)
		}
	}
	if !strings.Contains(out, "/lessons-") {
		t.Errorf("the program should run in a group of the sandbox's: %s", out)
	}
}

// A program still running after Policy.Yield gets a fifth of the CPU
// weight: it yields the cores to others, and keeps running.
func TestCgroupYield(t *testing.T) {
	f := setup(t)
	f.withCgroups(t)
	f.pol.Yield = 200 * time.Millisecond
	out, res := f.run(t, "weight", 10*time.Second, "1s")
	if !res.OK() || !strings.Contains(out, "weight at start: 100 <nil>") || !strings.Contains(out, "weight later: 20 <nil>") {
		t.Fatalf("the weight should drop from 100 to 20: %q %+v", out, res)
	}
}

func TestCgroupStopsForkBombOfRoot(t *testing.T) {
	// pids.max holds where RLIMIT_NPROC does not: for root, or for a user
	// with other processes.
	f := setup(t)
	f.withCgroups(t)
	f.pol.UID, f.pol.GID, f.pol.Procs = 0, 0, 30
	out, res := f.run(t, "fork", 20*time.Second)
	var n int
	if _, err := fmt.Sscanf(out, "fork: refused after %d", &n); err != nil || n >= 30 {
		t.Fatalf("the fork bomb should be refused before 30 processes: %q %+v", out, res)
	}
}

func TestCgroupMemory(t *testing.T) {
	f := setup(t)
	f.withCgroups(t)
	f.pol.Memory = 1 << 30 // RLIMIT_DATA too: the Go runtime wants some
	out, res := f.run(t, "shm", 20*time.Second, "2048")
	if strings.Contains(out, "touched") || !res.OutOfMemory || res.Reason(0, 0) != "used more memory than its limit and was killed" {
		t.Fatalf("2 GiB of shared memory under a 1 GiB limit: %q %+v", out, res)
	}
}

func TestCgroupKillsEscapees(t *testing.T) {
	f := setup(t)
	f.withCgroups(t)
	f.pol.UID, f.pol.GID = 0, 0 // no user of its own: only the cgroup finds the child
	out, _ := f.run(t, "escape", 10*time.Second)
	var pid int
	if i := strings.Index(out, "child: "); i < 0 {
		t.Fatalf("no child: %q", out)
	} else {
		fmt.Sscan(out[i+len("child: "):], &pid)
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if i := bytes.LastIndexByte(stat, ')'); err == nil && i > 0 && i+2 < len(stat) && stat[i+2] != 'Z' {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the child %d that left the process group outlived the run: %s", pid, stat)
	}
}

func TestWallClockLimit(t *testing.T) {
	f := setup(t)
	_, res := f.run(t, "spin", 500*time.Millisecond)
	if !res.TimedOut {
		t.Fatalf("%+v", res)
	}
}

func TestFileSizeLimit(t *testing.T) {
	f := setup(t)
	f.pol.FileSize = 2 << 20
	out, res := f.run(t, "bigfile", 10*time.Second, "8")
	if res.OK() || strings.Contains(out, "done") {
		t.Fatalf("%q %+v", out, res)
	}
	if st, err := os.Stat(filepath.Join(f.dir, "big")); err != nil || st.Size() > 2<<20 {
		t.Errorf("file: %v %v", st, err)
	}
}

func TestNoNetwork(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	f := setup(t)
	if v, _ := llsys.LandlockGetABIVersion(); v < 4 && !netnsOK() {
		t.Skip("neither Landlock's TCP rules nor network namespaces here")
	}
	out, _ := f.run(t, "connect", 10*time.Second, ln.Addr().String())
	if strings.Contains(out, "connect: <nil>") {
		t.Errorf("a sandboxed program reached a local server: %q", out)
	}
	f.pol.Network = true
	out, _ = f.run(t, "connect", 10*time.Second, ln.Addr().String())
	if !strings.Contains(out, "connect: <nil>") {
		t.Errorf("with Network set the program should connect: %q", out)
	}
}

func TestReport(t *testing.T) {
	s := Report{}.String()
	if !strings.Contains(s, "limits on CPU time") {
		t.Error(s)
	}
}

// TestForkBombWithEscapes: children that leave the process group and keep
// the output open neither hang the grader nor outlive the run.
func TestForkBombWithEscapes(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs workers with users of their own (root)")
	}
	f := setup(t)
	f.pol.Procs = 30
	start := time.Now()
	_, res := f.run(t, "forkescape", 2*time.Second)
	if time.Since(start) > time.Minute { // a hang, not a loaded machine
		t.Fatalf("the run took %s", time.Since(start))
	}
	if !res.TimedOut {
		t.Errorf("%+v", res)
	}
	if pids := pidsOf(f.pol.UID); len(pids) != 0 {
		t.Errorf("processes %v outlived the run", pids)
	}
}

// TestCgroupStaleRemoved: the groups a grader killed with SIGKILL left,
// with a program still running in one, are removed (and the program
// killed) by the next grader; groups of another pid namespace are left.
func TestCgroupStaleRemoved(t *testing.T) {
	f := setup(t)
	f.withCgroups(t)
	parent := filepath.Dir(f.cgroups.dir)
	dead := 4194000
	for syscall.Kill(dead, 0) != syscall.ESRCH {
		dead--
	}
	stale := filepath.Join(parent, fmt.Sprintf("%s%d", groupPrefix(), dead))
	foreign := filepath.Join(parent, fmt.Sprintf("lessons-1-%d", dead))
	for _, d := range []string{stale, filepath.Join(stale, "1"), foreign} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.Remove(filepath.Join(stale, "1")); os.Remove(stale); os.Remove(foreign) })
	fd, err := unix.Open(filepath.Join(stale, "1"), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	sleeper := exec.Command("/bin/sleep", "60")
	sleeper.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	err = sleeper.Start()
	unix.Close(fd)
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- sleeper.Wait() }()

	next, err := OpenCgroups()
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale group %s is still there (%v)", stale, err)
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Errorf("another namespace's group was removed: %v", err)
	}
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		sleeper.Process.Kill()
		t.Error("the program in the stale group is still running")
	}
}

// Two runs as one user (two graders or class servers on one machine: two
// GPU pilots of a node gave their cells the same users) do not kill each
// other: a run's end kills every process of its user, so the second
// waits for the first; choosing a user skips one a run holds. The first
// run ends only when the test says so, after the second has ended or
// has had a second to: with the lock broken the second ends first and
// kills the first; with it, the second cannot end before the first.
func TestTwoRunsOfOneUserDoNotKillEachOther(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs workers with users of their own (root)")
	}
	f := setup(t)
	goFile := filepath.Join(f.dir, "go")
	type ran struct {
		out string
		res *runner.Result
		err error
	}
	run := func(mode string, args ...string) <-chan ran {
		c := make(chan ran, 1)
		go func() {
			var out bytes.Buffer
			res, err := Runner{Policy: f.pol, Self: f.self, Cgroups: f.cgroups}.Run(context.Background(), runner.Spec{
				Argv: append([]string{f.self}, args...), Dir: f.dir, Timeout: 30 * time.Second, MaxOutput: 1 << 16,
				Env: []string{"SANDBOX_TEST_MODE=" + mode, "PATH=/usr/bin:/bin"},
			}, &out)
			c <- ran{out.String(), res, err}
		}()
		return c
	}
	first := run("await", goFile)
	for deadline := time.Now().Add(10 * time.Second); len(pidsOf(f.pol.UID)) == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if UserFree(f.pol.UID) {
		t.Error("a user a run holds is free")
	}
	second := run("env")
	var b ran
	select {
	case b = <-second: // the lock is broken: the first is killed now
	case <-time.After(time.Second): // waiting for the first, as it should
	}
	os.WriteFile(goFile, nil, 0o644)
	a := <-first
	if b.res == nil {
		b = <-second
	}
	if a.err != nil || !strings.Contains(a.out, "await: woke") {
		t.Errorf("the first run, as the second's user: %q %v (killed when the second ended)", a.out, a.err)
	}
	if b.err != nil || !b.res.OK() {
		t.Errorf("the second run: %q %+v %v", b.out, b.res, b.err)
	}
	if !UserFree(f.pol.UID) {
		t.Error("the user is still held after both runs")
	}
}
