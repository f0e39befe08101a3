package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/cudalessons/lessons/internal/runner"
)

// envProbe, set to a probeTargets, makes Helper a probe of the sandbox it
// runs in: it tries each door and prints what opened (Runner.Verify).
const envProbe = "LESSONS_SANDBOX_PROBE"

// Report says which protections a sandbox gave a probe started in it, as
// a student's program is started: each field is what the probe found, not
// what the kernel offers.
type Report struct {
	// Landlock is the ABI in force, 0 when a file outside the sandbox's
	// folders was readable.
	Landlock int
	// Root: the program ran as a user other than the grader's (a user of
	// its own per worker), so the process limit is its own.
	Root bool
	// UID is the user the probe ran as.
	UID int
	// NetNS: the probe was in a network namespace of its own, and a TCP
	// listener and a UDP socket of the grader's on 127.0.0.1 were out of
	// its reach.
	NetNS bool
	// Terminal: no terminal reached: a session of its own, /dev/tty not
	// opened, and TIOCSTI refused by the filter (EPERM, not ENOTTY).
	Terminal bool
	// Sockets: a pathname and an abstract Unix socket of the grader's,
	// both 0666 outside the sandbox, refused a connection.
	Sockets bool
	// PIDNS: the probe ran in a pid namespace of its own (a grader that
	// is not root gives each run one), and its process limit counted the
	// run's processes alone: a child started under a limit of the run's
	// processes and one more went through (the grader's user has more).
	PIDNS bool
	// Ends: a process the probe left behind, in a session of its own,
	// was gone when the run ended.
	Ends bool
	// Cgroup is set when the probe ran in a control group of the
	// sandbox's; CPUs are its cores (BuildCPUs, when set, a build's).
	Cgroup    bool
	CPUs      float64
	BuildCPUs float64
	// NoCgroup says why there is none, when there is none.
	NoCgroup string
	// Signals: a signal to the grader's process (0, which only asks
	// whether it may) was refused.
	Signals bool
	// OwnDev: the probe's /dev listed only what a run may use (the
	// harmless devices, the GPU's files, /dev/shm, links to its own
	// descriptors): no terminal, no disk; its GPUs are then those it was
	// given alone.
	OwnDev bool
	// DirFiles, when set, is how many files its folder could hold: a
	// file system of its own of the policy's DirFiles.
	DirFiles uint64
	// As, when set, names the one user the program runs as (lessons
	// sandbox run by root without --uid), instead of advice about users.
	As string
	// Failed says why the probe could not run; nothing is claimed then.
	Failed string
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
	if r.Failed != "" {
		return "nothing verified: the probe of the sandbox failed (" + r.Failed + ")"
	}
	var parts []string
	if r.Landlock > 0 {
		parts = append(parts, fmt.Sprintf("Landlock v%d", r.Landlock)+say(" (files outside the scratch folder are neither readable nor writable)", ""))
	} else {
		parts = append(parts, "no Landlock "+say("(student code can read what its user can read; as the grader's own user, write what it can write too: the gradebook, the other submissions; grade as root)", "(students' programs could read, and as the grader's user write, other files)"))
	}
	switch {
	case r.As != "":
		parts = append(parts, "runs as "+r.As)
	case r.Root:
		parts = append(parts, say("a user of its own per worker", "a user per worker"))
	case r.PIDNS:
		parts = append(parts, say("the grader's own user, with a process limit per run (a pid namespace of its own; run as root to give each worker a user of its own)", "the grader's user, processes counted per run"))
	default:
		parts = append(parts, say("the grader's own user (run as root to give each worker a user of its own)", "the grader's user (grade as root for a user per worker)"))
	}
	if r.Ends {
		parts = append(parts, say("nothing it starts outlives it", "nothing outlives a run"))
	} else {
		parts = append(parts, say("a process it starts in a session of its own can outlive it", "processes can outlive a run"))
	}
	if r.NetNS {
		parts = append(parts, "no network"+say(" (a namespace of its own)", ""))
	} else {
		parts = append(parts, "the network reachable"+say(" (no network namespace here)", ""))
	}
	if r.Terminal {
		parts = append(parts, "no terminal")
	} else {
		parts = append(parts, "the grader's terminal reachable")
	}
	if r.Sockets {
		parts = append(parts, "no Unix sockets outside its folder")
	} else {
		parts = append(parts, "Unix sockets outside its folder reachable")
	}
	if r.Signals {
		parts = append(parts, say("the grader out of its signals' reach", "no signals to the grader"))
	} else {
		parts = append(parts, say("the grader within its signals' reach (grade as root, or where user namespaces or Landlock v6 are allowed)", "the grader can be signalled"))
	}
	if r.OwnDev {
		parts = append(parts, say("a /dev of its own (no terminal, no disk; of the GPUs' files, those of the GPUs its CUDA_VISIBLE_DEVICES names)", "a /dev of its own"))
	} else {
		parts = append(parts, say("the machine's /dev (every GPU's device file open to it)", "every GPU reachable"))
	}
	if r.DirFiles > 0 {
		parts = append(parts, say(fmt.Sprintf("a folder of its own of at most %d files", r.DirFiles), "files per run capped"))
	} else {
		parts = append(parts, say("as many files in its folder as the disk holds", "files per run uncapped"))
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
		// A run's memory is bounded by RLIMIT_DATA alone, which counts
		// neither shared memory nor memfds; RLIMIT_AS would, but CUDA
		// maps address space far beyond memory, and a system call filter
		// refusing shared memory would refuse CUDA's pinned host memory
		// (shared memory too): nothing here bounds it, and it is said.
		parts = append(parts, say(fmt.Sprintf("no cgroup of its own (%s), so a runaway program slows the others, and a run's memory is not bounded: its private memory is (RLIMIT_DATA), its shared memory, memfds and CUDA's pinned host memory are not, so runs at once can run the machine out of memory", why),
			fmt.Sprintf("no cgroups (%s): a run's memory is not bounded", why)))
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

// probeTargets are the grader's doors that the probe knocks on.
type probeTargets struct {
	File     string `json:"file"`     // readable by anyone, outside the sandbox's folders
	Socket   string `json:"socket"`   // a listening pathname socket, 0666, outside
	Abstract string `json:"abstract"` // a listening abstract socket's name
	TCP      string `json:"tcp"`      // a listener on 127.0.0.1
	UDP      string `json:"udp"`      // a UDP socket on 127.0.0.1
	NetNS    string `json:"netns"`    // the grader's network namespace
	PIDNS    string `json:"pidns"`    // the grader's pid namespace
	Grader   int    `json:"grader"`   // the grader's pid
	// Held, when set, is a descriptor of the grader's pipe (3) that a
	// process the probe leaves behind holds.
	Held bool `json:"held"`
}

// probeFound is what the probe reached; true is a door open.
type probeFound struct {
	UID       int    `json:"uid"`
	Landlock  int    `json:"landlock"` // the kernel's ABI
	File      bool   `json:"file"`
	SameNetNS bool   `json:"same_netns"`
	TCP       bool   `json:"tcp"`
	Session   bool   `json:"session"` // a session of its own
	TTY       bool   `json:"tty"`
	TIOCSTI   string `json:"tiocsti"` // the ioctl's error, "" if it went through
	Socket    bool   `json:"socket"`
	Abstract  bool   `json:"abstract"`
	Cgroup    string `json:"cgroup"`
	OwnPIDNS  bool   `json:"own_pidns"`
	Counted   bool   `json:"counted"` // a child started under a limit of the run's processes + 2
	Left      string `json:"left"`    // starting the process left behind: its error
	LeftPID   int    `json:"left_pid"`
	Signal    bool   `json:"signal"`    // a signal 0 to the grader went through
	Devices   string `json:"devices"`   // what /dev listed that a run has no use for
	DirFiles  uint64 `json:"dir_files"` // its folder's inodes, where it is a tmpfs
}

// devForRuns reports whether a run has a use for name in /dev.
func devForRuns(name string) bool {
	switch name {
	case "null", "zero", "full", "random", "urandom", "fd", "stdin", "stdout", "stderr", "shm", "nvidia-caps":
		return true
	}
	return strings.HasPrefix(name, "nvidia")
}

const probeMark = "lessons-sandbox-probe: "

// probe is the probe's side, run in the sandbox as its program.
func probe(data string) int {
	var t probeTargets
	if err := json.Unmarshal([]byte(data), &t); err != nil {
		fmt.Fprintln(os.Stderr, "lessons sandbox probe:", err)
		return exitHelper
	}
	f := probeFound{UID: os.Getuid()}
	f.Landlock, _ = llsys.LandlockGetABIVersion()
	_, err := os.ReadFile(t.File)
	f.File = err == nil
	ns, _ := os.Readlink("/proc/self/ns/net")
	f.SameNetNS = ns == t.NetNS
	dial := func(network, addr string) bool {
		c, err := net.DialTimeout(network, addr, 2*time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	}
	f.TCP = dial("tcp", t.TCP)
	if c, err := net.Dial("udp", t.UDP); err == nil {
		c.Write([]byte("probe")) // the grader looks for it once the probe has ended
		c.Close()
	}
	sid, _ := unix.Getsid(0)
	f.Session = sid == os.Getpid()
	if tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		f.TTY = true
		tty.Close()
	}
	// On /dev/null the kernel answers ENOTTY; EPERM is the filter's.
	if null, err := os.Open("/dev/null"); err == nil {
		c := byte('x')
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, null.Fd(), unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
		if errno != 0 {
			f.TIOCSTI = errno.Error()
		}
		null.Close()
	}
	f.Signal = t.Grader > 0 && unix.Kill(t.Grader, 0) == nil
	if ents, err := os.ReadDir("/dev"); err == nil {
		var extra []string
		for _, e := range ents {
			if !devForRuns(e.Name()) {
				extra = append(extra, e.Name())
			}
		}
		f.Devices = strings.Join(extra, " ")
	} else {
		f.Devices = err.Error()
	}
	var st unix.Statfs_t
	if unix.Statfs(".", &st) == nil && st.Type == unix.TMPFS_MAGIC {
		f.DirFiles = st.Files
	}
	f.Socket = dial("unix", t.Socket)
	f.Abstract = dial("unix", "@"+t.Abstract)
	if cg, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		for _, line := range strings.Split(string(cg), "\n") {
			if p, ok := strings.CutPrefix(line, "0::"); ok {
				f.Cgroup = p
			}
		}
	}
	ns, _ = os.Readlink("/proc/self/ns/pid")
	f.OwnPIDNS = ns != "" && ns != t.PIDNS
	f.Counted = countedPerRun(f.OwnPIDNS)
	if t.Held {
		child := exec.Command("/bin/sleep", "10")
		child.ExtraFiles = []*os.File{os.NewFile(3, "held")}
		child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := child.Start(); err != nil {
			f.Left = err.Error()
		} else {
			f.LeftPID = child.Process.Pid
		}
	}
	out, _ := json.Marshal(f)
	fmt.Println(probeMark + string(out))
	return 0
}

// envProbeFork makes Helper the probe's second process, which tries a
// fork under a process limit of the run's own (countedPerRun).
const envProbeFork = "LESSONS_SANDBOX_PROBE_FORK"

// countedPerRun reports whether a child started under a process limit of
// the run's processes (threads included) and two more (the child, and a
// thread a runtime may start meanwhile). In a pid namespace of the run's
// own, the run's processes are all that /proc lists; otherwise those of
// this user. Where the kernel counts every process of the grader's user
// instead (before Linux 5.14, or outside a user namespace of the run's),
// the grader's own threads (at least two) pass the limit. It is tried in
// a second process: a Go runtime that cannot start a thread stops, and
// only that process may stop for it.
func countedPerRun(ownPIDNS bool) bool {
	self, err := os.Executable()
	if err != nil {
		return false
	}
	cmd := exec.Command(self)
	cmd.Env = []string{envProbeFork + "=" + strconv.FormatBool(ownPIDNS)}
	out, err := cmd.Output()
	return err == nil && strings.TrimSpace(string(out)) == "started"
}

// probeFork is the probe's second process (countedPerRun).
func probeFork(ownPIDNS bool) int {
	n := 0
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if !ownPIDNS {
			st, err := os.Stat(filepath.Join("/proc", e.Name()))
			if err != nil {
				continue
			}
			if s, ok := st.Sys().(*syscall.Stat_t); !ok || int(s.Uid) != os.Getuid() {
				continue
			}
		}
		tasks, _ := os.ReadDir(filepath.Join("/proc", e.Name(), "task"))
		n += max(len(tasks), 1)
	}
	var lim unix.Rlimit
	if n == 0 || unix.Getrlimit(unix.RLIMIT_NPROC, &lim) != nil || lim.Cur != unix.RLIM_INFINITY && lim.Cur < uint64(n+2) {
		return 1
	}
	lim.Cur = uint64(n + 2)
	if unix.Setrlimit(unix.RLIMIT_NPROC, &lim) != nil {
		return 1
	}
	pid, err := syscall.ForkExec("/bin/true", []string{"true"}, &syscall.ProcAttr{})
	if err != nil {
		fmt.Println("refused:", err)
		return 1
	}
	var ws syscall.WaitStatus
	syscall.Wait4(pid, &ws, 0, nil)
	fmt.Println("started")
	return 0
}

// Verify starts a probe in the sandbox that r gives its programs (its
// policy, its user, its namespaces and cgroup), with doors of the
// grader's open outside it, and reports which of them the probe could
// not reach. The policy's Dir is made and removed here.
func (r Runner) Verify(ctx context.Context) Report {
	rep, err := r.verify(ctx)
	if err != nil {
		return Report{Failed: err.Error()}
	}
	return rep
}

func (r Runner) verify(ctx context.Context) (Report, error) {
	self := r.Self
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return Report{}, err
		}
	}
	base, err := os.MkdirTemp("", "lessons-probe-")
	if err != nil {
		return Report{}, err
	}
	defer os.RemoveAll(base)
	os.Chmod(base, 0o755) // only Landlock stands between the probe and these
	outside := filepath.Join(base, "outside")
	if err := os.Mkdir(outside, 0o777); err != nil {
		return Report{}, err
	}
	os.Chmod(outside, 0o777)
	var t probeTargets
	t.File = filepath.Join(outside, "secret")
	if err := os.WriteFile(t.File, []byte("secret\n"), 0o644); err != nil {
		return Report{}, err
	}
	t.Socket = filepath.Join(outside, "sock")
	ul, err := net.Listen("unix", t.Socket)
	if err != nil {
		return Report{}, err
	}
	defer ul.Close()
	os.Chmod(t.Socket, 0o666)
	var rnd [8]byte
	rand.Read(rnd[:])
	t.Abstract = "lessons-probe-" + hex.EncodeToString(rnd[:])
	al, err := net.Listen("unix", "@"+t.Abstract)
	if err != nil {
		return Report{}, err
	}
	defer al.Close()
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Report{}, err
	}
	defer tl.Close()
	t.TCP = tl.Addr().String()
	uc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return Report{}, err
	}
	defer uc.Close()
	t.UDP = uc.LocalAddr().String()
	t.NetNS, _ = os.Readlink("/proc/self/ns/net")
	t.PIDNS, _ = os.Readlink("/proc/self/ns/pid")
	t.Grader = os.Getpid()
	// The probe leaves a process holding this pipe's write end: the
	// read end sees the end of the file once no process holds it.
	held, hold, err := os.Pipe()
	if err != nil {
		return Report{}, err
	}
	defer held.Close()
	defer hold.Close()
	t.Held = true
	for _, l := range []net.Listener{ul, al, tl} {
		go func() { // accept, so that a connect is not left waiting
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
	}

	p := r.Policy
	p.Dir = filepath.Join(base, "scratch")
	if err := os.Mkdir(p.Dir, 0o700); err != nil {
		return Report{}, err
	}
	if err := Own(p.Dir, p.UID, p.GID); err != nil {
		return Report{}, err
	}
	p.Inner = nil
	p.Read = append(p.Read[:len(p.Read):len(p.Read)], self) // the probe is this binary
	data, _ := json.Marshal(t)
	run := r
	run.Policy = p
	var out bytes.Buffer
	res, err := run.Run(ctx, runner.Spec{
		Argv: []string{self}, Dir: p.Dir, Timeout: 30 * time.Second, MaxOutput: 1 << 16,
		Env:        []string{envProbe + "=" + string(data), "PATH=/usr/bin:/bin"},
		ExtraFiles: []*os.File{hold},
		Started:    func(int) { hold.Close() },
	}, &out)
	if err != nil {
		return Report{}, err
	}
	var f probeFound
	line := ""
	for _, l := range strings.Split(out.String(), "\n") {
		if s, ok := strings.CutPrefix(l, probeMark); ok {
			line = s
		}
	}
	if line == "" {
		return Report{}, fmt.Errorf("the probe printed no findings (%s): %s", res.Reason(30*time.Second, 1<<16), strings.TrimSpace(out.String()))
	}
	if err := json.Unmarshal([]byte(line), &f); err != nil {
		return Report{}, fmt.Errorf("the probe's findings: %w", err)
	}
	udp, err := queued(uc)
	if err != nil {
		return Report{}, fmt.Errorf("reading the probe's datagram: %w", err)
	}

	// Every process of the run has ended by now, or never will.
	held.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	n, rerr := held.Read(make([]byte, 1))

	rep := Report{UID: f.UID}
	rep.Ends = f.Left == "" && n == 0 && errors.Is(rerr, io.EOF)
	if !rep.Ends && f.LeftPID > 0 && !f.OwnPIDNS {
		syscall.Kill(f.LeftPID, syscall.SIGKILL) // what the sandbox did not end
	}
	rep.PIDNS = f.OwnPIDNS && f.Counted
	if !f.File {
		rep.Landlock = f.Landlock
		if r.Policy.Landlock > 0 {
			rep.Landlock = min(rep.Landlock, r.Policy.Landlock)
		}
	}
	rep.Root = f.UID != os.Getuid() && f.UID != 0
	rep.NetNS = !f.SameNetNS && !f.TCP && !udp
	rep.Terminal = f.Session && !f.TTY && f.TIOCSTI == unix.EPERM.Error()
	rep.Sockets = !f.Socket && !f.Abstract
	rep.Signals = !f.Signal
	rep.OwnDev = f.Devices == ""
	if f.DirFiles > 0 && f.DirFiles == r.Policy.DirFiles {
		rep.DirFiles = f.DirFiles
	}
	rep.Cgroup = r.Cgroups != nil && strings.Contains(f.Cgroup, "/lessons-")
	if rep.Cgroup {
		rep.CPUs = r.Policy.CPUs
	}
	if r.Cgroups != nil && !rep.Cgroup {
		rep.NoCgroup = "the probe ran in " + f.Cgroup + ", not in a group of the sandbox's"
	}
	return rep, nil
}

// queued reports whether a datagram waits in c's queue. Loopback
// delivers one before sendto returns: once the sender has ended, it is
// there now or it never came.
func queued(c net.PacketConn) (bool, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false, errors.New("not a socket")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false, err
	}
	var got bool
	var rerr error
	err = rc.Control(func(fd uintptr) {
		_, _, rerr = unix.Recvfrom(int(fd), make([]byte, 16), unix.MSG_DONTWAIT)
		got = rerr == nil
	})
	if err == nil && rerr != nil && rerr != unix.EAGAIN {
		err = rerr
	}
	return got, err
}
