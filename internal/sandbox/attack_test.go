package sandbox

// The attack suite: one test per door of the sandbox and per variation of
// it (the program as root or as a user; the grader as root or as a user,
// a re-exec of this test binary as nobody). Each asserts what an attacker
// got, not how the sandbox is built.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/cudalessons/lessons/internal/runner"
)

// nobody is the user the user-mode variants grade as, when the tests run
// as root.
const nobody = 65534

// graderUser is the user of the user-mode variants' grader: nobody, or
// the user the tests run as when it is not root (they run as a grader
// that is not root then, without dropping to anyone).
func graderUser() int {
	if os.Geteuid() == 0 {
		return nobody
	}
	return os.Geteuid()
}

// attack is an untrusted program's attack; it prints what it got.
func attack(mode string, args []string) (int, bool) {
	switch mode {
	case "tty": // the grader's terminal: write to it, type into it
		f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		fmt.Println("open /dev/tty:", err)
		if err == nil {
			_, err = f.WriteString("alice: 10 of 10\n")
			fmt.Println("write /dev/tty:", err)
			fmt.Println("TIOCSTI /dev/tty:", tiocsti(f.Fd()))
		}
		fmt.Println("TIOCSTI stdin:", tiocsti(0))
		sid, _ := unix.Getsid(0)
		fmt.Println("own session:", sid == os.Getpid())
	case "unix": // connect to a pathname socket args[0] and an abstract one args[1]
		for _, addr := range []string{args[0], "@" + args[1]} {
			c, err := net.DialTimeout("unix", addr, 2*time.Second)
			if err == nil {
				c.Write([]byte("pwned\n"))
				c.Close()
			}
			fmt.Printf("unix %s: %v\n", addr, err)
		}
	case "unixgram": // send a datagram, unconnected, to the socket args[0]
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
		if err == nil {
			err = unix.Sendto(fd, []byte("pwned"), 0, &unix.SockaddrUnix{Name: args[0]})
			unix.Close(fd)
		}
		fmt.Println("unixgram:", err)
	case "mps": // what the CUDA driver does at start: look for an MPS server
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
		fmt.Println("mps socket:", err)
		if err == nil {
			fmt.Println("mps connect:", unix.Connect(fd, &unix.SockaddrUnix{Name: args[0]}))
			unix.Close(fd)
		}
	case "families": // make a socket of each address family, and a vsock connect to the host
		for _, c := range []struct {
			name            string
			family, typ, pr int
		}{
			{"inet", unix.AF_INET, unix.SOCK_STREAM, 0},
			{"inet6", unix.AF_INET6, unix.SOCK_DGRAM, 0},
			{"unix", unix.AF_UNIX, unix.SOCK_STREAM, 0},
			{"netlink route", unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE},
			{"vsock", unix.AF_VSOCK, unix.SOCK_STREAM, 0},
			{"vsock dgram", unix.AF_VSOCK, unix.SOCK_DGRAM, 0},
			{"netlink audit", unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_AUDIT},
			{"netlink uevent", unix.AF_NETLINK, unix.SOCK_DGRAM, unix.NETLINK_KOBJECT_UEVENT},
			{"netlink sock_diag", unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_SOCK_DIAG},
			{"netlink generic", unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_GENERIC},
			{"packet", unix.AF_PACKET, unix.SOCK_RAW, 0},
			{"alg", unix.AF_ALG, unix.SOCK_SEQPACKET, 0},
			{"xdp", unix.AF_XDP, unix.SOCK_RAW, 0},
			{"bluetooth", unix.AF_BLUETOOTH, unix.SOCK_STREAM, 0},
			{"inet with high bits", unix.AF_VSOCK | 1<<32, unix.SOCK_STREAM, 0},
		} {
			fd, _, errno := unix.RawSyscall(unix.SYS_SOCKET, uintptr(c.family), uintptr(c.typ), uintptr(c.pr))
			if errno == 0 {
				if c.family == unix.AF_VSOCK {
					// The host (CID 2), a port its agent might hold.
					fmt.Printf("%s connect: %v\n", c.name, unix.Connect(int(fd), &unix.SockaddrVM{CID: unix.VMADDR_CID_HOST, Port: 1024}))
				}
				unix.Close(int(fd))
				fmt.Printf("%s: made\n", c.name)
			} else {
				fmt.Printf("%s: %v\n", c.name, errno)
			}
		}
		_, err := unix.Socketpair(unix.AF_VSOCK, unix.SOCK_STREAM, 0)
		fmt.Println("socketpair vsock:", err)
		_, err = unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		fmt.Println("socketpair unix:", err)
	case "stat": // stat each of args, and list their folders
		for _, a := range args {
			st, err := os.Stat(a)
			if err == nil {
				fmt.Printf("stat %s: %d bytes\n", a, st.Size())
			} else {
				fmt.Printf("stat %s: %v\n", a, err)
			}
		}
	case "shared": // touch args[0] MiB of shared anonymous memory
		var n int
		fmt.Sscan(args[0], &n)
		b, err := unix.Mmap(-1, 0, n<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
		if err == nil {
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			fmt.Printf("shared: %d MiB touched\n", n)
		} else {
			fmt.Println("shared:", err)
		}
	case "open": // open args[0] to read, without waiting on it
		f, err := os.OpenFile(args[0], os.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
		if err == nil {
			f.Close()
		}
		fmt.Println("open:", err)
	case "udp": // send a datagram to args[0]
		c, err := net.Dial("udp", args[0])
		if err == nil {
			_, err = c.Write([]byte("pwned"))
			c.Close()
		}
		fmt.Println("udp:", err)
	case "fds": // the descriptors it was left, and what they are
		var open []string
		for fd := 3; fd < 256; fd++ {
			if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil {
				target, _ := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
				if strings.HasPrefix(target, "/sys/fs/cgroup/") {
					continue // this Go program's own runtime reads its CPU quota there
				}
				open = append(open, fmt.Sprintf("%d=%s", fd, target))
			}
		}
		fmt.Println("fds:", strings.Join(open, " "))
	case "outlive": // leave a child behind, in a session of its own, holding the FIFO args[0]
		w, err := os.OpenFile(args[0], os.O_WRONLY, 0)
		if err != nil {
			fmt.Println("outlive:", err)
			break
		}
		child := exec.Command("/bin/sleep", "60")
		child.ExtraFiles = []*os.File{w}
		child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		fmt.Println("outlive: child", child.Start())
	case "cmdlines": // the command lines of other processes holding args[0]+args[1] (another run's hidden arguments)
		ents, _ := os.ReadDir("/proc")
		seen := 0
		for _, e := range ents {
			data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if err != nil || e.Name() == fmt.Sprint(os.Getpid()) {
				continue
			}
			seen++
			if bytes.Contains(data, []byte(args[0]+args[1])) {
				fmt.Printf("cmdline of %s: %q\n", e.Name(), bytes.ReplaceAll(data, []byte{0}, []byte{' '}))
			}
		}
		fmt.Println("cmdlines: read", seen)
	case "sysv": // leave a System V shared memory segment and a message queue (key args[0]) behind, for a classmate's run
		var key int
		fmt.Sscan(args[0], &key)
		id, err := unix.SysvShmGet(key, 1<<20, unix.IPC_CREAT|0o666)
		if err == nil {
			var mem []byte
			if mem, err = unix.SysvShmAttach(id, 0, 0); err == nil {
				copy(mem, "hidden run args: 4096 17")
				unix.SysvShmDetach(mem)
			}
		}
		_, _, errno := unix.Syscall(unix.SYS_MSGGET, uintptr(key), unix.IPC_CREAT|0o666, 0)
		fmt.Println("sysv:", err, errno)
	case "posixshm": // leave a POSIX shared memory object (/dev/shm/args[0]) behind, as cudaIpcGetEventHandle makes one
		err := os.WriteFile("/dev/shm/"+args[0], []byte("hidden run args: 4096 17"), 0o666)
		fmt.Println("posixshm:", err)
	case "keyring": // leave a key in its user's keyring, which outlives the run; or read one left there
		id, err := unix.AddKey("user", "lessons-attack", []byte("hidden run args: 4096 17"), unix.KEY_SPEC_USER_KEYRING)
		fmt.Println("add_key:", err)
		if err == nil {
			unix.KeyctlInt(unix.KEYCTL_INVALIDATE, id, 0, 0, 0)
		}
		_, err = unix.RequestKey("user", "lessons-attack", "", unix.KEY_SPEC_USER_KEYRING)
		fmt.Println("request_key:", err)
	case "trace": // ptrace a process of its own user (its own child; the sanitizer's, under it)
		child := exec.Command("/bin/sleep", "10")
		if err := child.Start(); err != nil {
			fmt.Println("ptrace: no child:", err)
			break
		}
		defer child.Process.Kill()
		_, _, errno := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_ATTACH, uintptr(child.Process.Pid), 0, 0, 0, 0)
		fmt.Println("ptrace:", errno)
	case "wxbypass": // the ways around a W^X filter (attack_wx_test.go)
		wxBypass()
	case "sleep": // wait to be killed
		time.Sleep(30 * time.Second)
	case "wx": // write code and run it: memory writable and executable, or made executable after a write
		_, err := unix.Mmap(-1, 0, 4096, unix.PROT_READ|unix.PROT_WRITE|unix.PROT_EXEC, unix.MAP_PRIVATE|unix.MAP_ANON)
		fmt.Println("mmap wx:", err)
		m, err := unix.Mmap(-1, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
		fmt.Println("mmap w:", err)
		if err == nil {
			m[0] = 0xc3 // ret
			fmt.Println("mprotect x:", unix.Mprotect(m, unix.PROT_READ|unix.PROT_EXEC))
			fmt.Println("mprotect wx:", unix.Mprotect(m, unix.PROT_READ|unix.PROT_WRITE|unix.PROT_EXEC))
			_, _, errno := unix.Syscall6(unix.SYS_PKEY_MPROTECT, uintptr(unsafe.Pointer(&m[0])), 4096, unix.PROT_READ|unix.PROT_EXEC, ^uintptr(0), 0, 0)
			fmt.Println("pkey_mprotect x:", errno)
			fmt.Println("mprotect r:", unix.Mprotect(m, unix.PROT_READ))
		}
	case "lsdev": // list /dev (or args[0]), and say what CUDA_VISIBLE_DEVICES it was given
		dev := "/dev"
		if len(args) > 0 {
			dev = args[0]
		}
		ents, err := os.ReadDir(dev)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		fmt.Printf("dev: %s (%v)\n", strings.Join(names, " "), err)
		fmt.Printf("visible: %s\n", os.Getenv("CUDA_VISIBLE_DEVICES"))
	case "signal": // kill its parent, the grader, by args[0]: kill, tgkill, a pidfd, /proc/PID as a pidfd
		grader := os.Getppid()
		var err error
		switch args[0] {
		case "kill":
			err = unix.Kill(grader, unix.SIGKILL)
		case "tgkill":
			err = unix.Tgkill(grader, grader, unix.SIGKILL)
		case "pidfd":
			var fd int
			if fd, err = unix.PidfdOpen(grader, 0); err == nil {
				err = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			}
		case "proc":
			var fd int
			if fd, err = unix.Open(fmt.Sprintf("/proc/%d", grader), unix.O_RDONLY|unix.O_DIRECTORY, 0); err == nil {
				err = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			}
		case "group":
			pgid, _ := unix.Getpgid(grader)
			err = unix.Kill(-pgid, unix.SIGKILL)
		case "setown": // SIGKILL to the grader when a pipe of its own has data (F_SETOWN, F_SETSIG, O_ASYNC)
			var p [2]int
			if err = unix.Pipe(p[:]); err == nil {
				_, err = unix.FcntlInt(uintptr(p[0]), unix.F_SETOWN, grader)
				if err == nil {
					_, err = unix.FcntlInt(uintptr(p[0]), unix.F_SETSIG, int(unix.SIGKILL))
				}
				if err == nil {
					_, err = unix.FcntlInt(uintptr(p[0]), unix.F_SETFL, unix.O_ASYNC)
				}
				if err == nil {
					unix.Write(p[1], []byte("x"))
				}
			}
		case "ioctlown": // the same through ioctl(FIOSETOWN) on a socket pair
			var p [2]int
			if p, err = unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0); err == nil {
				err = unix.IoctlSetPointerInt(p[0], 0x8901, grader) // FIOSETOWN
				if err == nil {
					_, err = unix.FcntlInt(uintptr(p[0]), unix.F_SETSIG, int(unix.SIGKILL))
				}
				if err == nil {
					_, err = unix.FcntlInt(uintptr(p[0]), unix.F_SETFL, unix.O_ASYNC)
				}
				if err == nil {
					unix.Write(p[1], []byte("x"))
				}
			}
		case "environ": // the grader's environment (an LMS key, a proxy's secret)
			var data []byte
			data, err = os.ReadFile(fmt.Sprintf("/proc/%d/environ", grader))
			if err == nil && bytes.Contains(data, []byte("GRADER_SECRET=")) {
				fmt.Println("read the grader's secret")
			}
		case "own": // its own process and group, as raise and a shell's job control do
			me := os.Getpid()
			err = errors.Join(unix.Kill(me, 0), unix.Kill(0, 0), unix.Kill(-me, 0), unix.Tgkill(me, me, 0))
			if err == nil {
				err = errors.New("own signals sent")
			}
		}
		fmt.Printf("signal %s %d: %v\n", args[0], grader, err)
	case "files": // make empty files in its folder until it may make no more (at most 20,000)
		n := 0
		var err error
		for ; n < 20000; n++ {
			var f *os.File
			if f, err = os.Create(fmt.Sprintf("f%d", n)); err != nil {
				break
			}
			f.Close()
		}
		fmt.Printf("files: made %d (%v)\n", n, err)
	default:
		return 0, false
	}
	return 0, true
}

// tiocsti types one character into the terminal fd; "<nil>" when it did.
func tiocsti(fd uintptr) string {
	c := byte('#')
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, fd, unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
	if errno == 0 {
		return "<nil>"
	}
	return errno.Error()
}

// graderRequest is what a re-exec of this binary as a grader does.
type graderRequest struct {
	Policy Policy
	Self   string
	Mode   string
	Args   []string
	Verify bool
	// Stdin, when set, gives the program descriptor 0 of the grader as
	// its input (a terminal).
	Stdin bool
	// Env is set in the grader's environment, ProgEnv added to the
	// program's.
	Env, ProgEnv []string
	// DevRoot and GPUInfo, when set, stand for /dev and the driver's
	// folder of GPUs.
	DevRoot, GPUInfo string
	// Timeout is the run's limit; 0 means 20 s.
	Timeout time.Duration
	// Prog, when set, is the program run (a copy of this binary the
	// grader put in the run's folder, as it puts a student's there);
	// Self otherwise.
	Prog string
}

// grader runs req, as lessons grade would, and prints what came back.
func grader(data string) int {
	var req graderRequest
	if err := json.Unmarshal([]byte(data), &req); err != nil {
		fmt.Println("grader:", err)
		return 2
	}
	for _, kv := range req.Env {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	if req.DevRoot != "" {
		devRoot, gpuInfo = req.DevRoot, req.GPUInfo
	}
	// Started by root as another user, this process is not dumpable (its
	// /proc entries are root's); a grader started from its user's shell
	// is.
	unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0)
	r := Runner{Policy: req.Policy, Self: req.Self}
	if req.Verify {
		out, _ := json.Marshal(r.Verify(context.Background()))
		fmt.Println(string(out))
		return 0
	}
	spec := runner.Spec{
		Argv: append([]string{cmp.Or(req.Prog, req.Self)}, req.Args...), Dir: req.Policy.Dir, Timeout: 20 * time.Second, MaxOutput: 1 << 16,
		Env: []string{"SANDBOX_TEST_MODE=" + req.Mode, "PATH=/usr/bin:/bin"},
	}
	spec.Env = append(spec.Env, req.ProgEnv...)
	if req.Timeout > 0 {
		spec.Timeout = req.Timeout
	}
	if req.Stdin {
		spec.Stdin = os.Stdin
	}
	res, err := r.Run(context.Background(), spec, os.Stdout)
	if err != nil {
		fmt.Println("grader:", err)
		return 2
	}
	fmt.Println("grader: the program ended:", res.Reason(0, 0))
	return 0
}

// gradeAs runs the fixture's program in mode as a grader would: this
// binary again, as root or as nobody (asUser), with a terminal of its own
// when tty is set (the program's standard input too, with stdin).
func (f *fixture) gradeAs(t *testing.T, asUser bool, tty *os.File, stdin bool, mode string, args ...string) string {
	t.Helper()
	return f.grader(t, asUser, tty, graderRequest{Policy: f.policyFor(t, asUser), Self: f.self, Mode: mode, Args: args, Stdin: stdin})
}

func (f *fixture) policyFor(t *testing.T, asUser bool) Policy {
	p := f.pol
	if asUser {
		// A grader that is not root runs programs as itself.
		p.UID, p.GID = 0, 0
		if err := os.Chown(f.dir, graderUser(), graderUser()); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func (f *fixture) grader(t *testing.T, asUser bool, tty *os.File, req graderRequest) string {
	t.Helper()
	data, _ := json.Marshal(req)
	cmd := exec.Command(f.self)
	cmd.Env = []string{"SANDBOX_TEST_GRADER=" + string(data), "PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if asUser && os.Geteuid() == 0 {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}}
	}
	if tty != nil {
		cmd.Stdin = tty
		cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setctty, cmd.SysProcAttr.Ctty = true, true, 0
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the grader: %v\n%s", err, out)
	}
	return string(out)
}

// pty opens a pseudo-terminal: the grader's terminal, the instructor's
// shell in real life. It returns the terminal and its master side.
func pty(t *testing.T) (tty, master *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlocking the pseudo-terminal: %v", err)
	}
	fd, _, errno := unix.Syscall(unix.SYS_IOCTL, m.Fd(), unix.TIOCGPTPEER, uintptr(unix.O_RDWR|unix.O_NOCTTY))
	if errno != 0 {
		t.Skipf("opening the pseudo-terminal's peer: %v", errno)
	}
	s := os.NewFile(fd, "pty")
	t.Cleanup(func() { s.Close(); m.Close() })
	return s, m
}

func legacyTIOCSTI() string {
	data, err := os.ReadFile("/proc/sys/dev/tty/legacy_tiocsti")
	if err != nil {
		return "absent"
	}
	return strings.TrimSpace(string(data))
}

// variants are the program's user (root: one that may use TIOCSTI
// whatever dev.tty.legacy_tiocsti says) and the grader's.
var variants = []struct {
	name                string
	programRoot, grader bool // grader: as nobody
}{
	{"program as root", true, false},
	{"program as a user of its own", false, false},
	{"grader as a user", false, true},
}

func (f *fixture) variant(t *testing.T, programRoot bool) {
	if programRoot {
		f.pol.UID, f.pol.GID = 0, 0
	}
}

// TestAttackTerminal: a program neither reaches the grader's terminal
// (/dev/tty) nor types into one it was handed (TIOCSTI on its input), as
// root (whom dev.tty.legacy_tiocsti=0 does not stop) or as a user.
func TestAttackTerminal(t *testing.T) {
	t.Logf("dev.tty.legacy_tiocsti = %s", legacyTIOCSTI())
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			f := setup(t)
			f.variant(t, v.programRoot)
			tty, _ := pty(t)
			out := f.gradeAs(t, v.grader, tty, false, "tty")
			if !strings.Contains(out, "open /dev/tty: open /dev/tty:") || strings.Contains(out, "write /dev/tty: <nil>") {
				t.Errorf("the program reached the grader's terminal:\n%s", out)
			}
			if !strings.Contains(out, "own session: true") {
				t.Errorf("the program should have a session of its own:\n%s", out)
			}
			// Handed a terminal as its input, it still cannot type into it.
			out = f.gradeAs(t, v.grader, tty, true, "tty")
			if !strings.Contains(out, "TIOCSTI stdin: operation not permitted") {
				t.Errorf("TIOCSTI on a terminal should be refused (EPERM):\n%s", out)
			}
		})
	}
}

// TestAttackTerminalByName: a program does not open the grader's
// terminal by its name either (/dev/pts/N), to read the keys typed there
// or write to it.
func TestAttackTerminalByName(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			f := setup(t)
			f.variant(t, v.programRoot)
			tty, master := pty(t)
			n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
			if err != nil {
				t.Skip(err)
			}
			name := fmt.Sprintf("/dev/pts/%d", n)
			if st, err := os.Stat(name); err != nil || st.Mode()&os.ModeCharDevice == 0 {
				t.Skipf("%s is not this terminal here", name)
			}
			if v.grader {
				// The grader's terminal is its user's: only the sandbox stands
				// between the program, of that user too, and the keys.
				os.Chown(name, graderUser(), graderUser())
			}
			out := f.gradeAs(t, v.grader, tty, false, "open", name)
			// Refused by Landlock, or not there in the run's own /dev.
			if !strings.Contains(out, "permission denied") && !strings.Contains(out, "no such file") {
				t.Errorf("the program opened the grader's terminal %s:\n%s", name, out)
			}
		})
	}
}

// listenUnix makes a pathname socket in a folder outside the sandbox
// (0777, the socket 0666: only the sandbox stands in the way) and an
// abstract one, accepting and counting what comes.
func listenUnix(t *testing.T) (path, abstract string, got chan string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "sandbox-sock-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o777)
	path = filepath.Join(dir, "bus")
	abstract = fmt.Sprintf("sandbox-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	got = make(chan string, 16)
	for _, addr := range []string{path, "@" + abstract} {
		l, err := net.Listen("unix", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				got <- addr
				c.Close()
			}
		}()
	}
	os.Chmod(path, 0o666)
	return path, abstract, got
}

// TestAttackUnixSockets: a program reaches no Unix socket outside its
// folder, pathname or abstract, as root or as a user, and on a kernel
// whose Landlock has no scopes (capped at ABI 5, before Linux 6.12).
func TestAttackUnixSockets(t *testing.T) {
	for _, v := range variants {
		for _, abi := range []int{0, 5} {
			t.Run(fmt.Sprintf("%s, Landlock %d", v.name, abi), func(t *testing.T) {
				f := setup(t)
				f.variant(t, v.programRoot)
				f.pol.Landlock = abi
				path, abstract, got := listenUnix(t)
				out := f.gradeAs(t, v.grader, nil, false, "unix", path, abstract)
				if strings.Contains(out, ": <nil>") || len(got) > 0 {
					t.Errorf("a socket outside the sandbox took a connection:\n%s", out)
				}
			})
		}
	}
}

// TestAttackAddressFamilies: a program makes sockets of the families a
// network namespace or Landlock isolates (IPv4, IPv6, Unix, netlink's
// routes) and of no other (vsock reached the host of a virtual-machine
// grader; netlink's audit, uevent, sock_diag and generic families the
// host's kernel), as root or as a user, whatever Landlock's ABI, and
// where the program may make Unix sockets (the rule below ABI 9 was all
// that refused vsock's connect).
func TestAttackAddressFamilies(t *testing.T) {
	for _, v := range variants {
		for _, c := range []struct {
			abi         int
			unixSockets bool
		}{{0, false}, {5, false}, {0, true}, {99, true}} {
			t.Run(fmt.Sprintf("%s, Landlock %d, unix sockets %v", v.name, c.abi, c.unixSockets), func(t *testing.T) {
				f := setup(t)
				f.variant(t, v.programRoot)
				f.pol.Landlock, f.pol.UnixSockets = c.abi, c.unixSockets
				out := f.gradeAs(t, v.grader, nil, false, "families")
				for _, ok := range []string{"inet: made", "inet6: made", "unix: made", "netlink route: made", "socketpair unix: <nil>"} {
					if !strings.Contains(out, ok) {
						t.Errorf("want %q:\n%s", ok, out)
					}
				}
				for _, line := range strings.Split(out, "\n") {
					name, rest, _ := strings.Cut(line, ":")
					refused := strings.HasPrefix(name, "vsock") || strings.HasPrefix(name, "netlink ") && name != "netlink route" ||
						slices.Contains([]string{"packet", "alg", "xdp", "bluetooth", "inet with high bits", "socketpair vsock"}, name)
					if refused && (strings.Contains(rest, "made") || strings.Contains(rest, "<nil>") || strings.Contains(name, "connect")) {
						t.Errorf("an address family nothing isolates: %s", line)
					}
				}
			})
		}
	}
}

// TestAttackStatClassmate: under a veil (a class's students/), a
// program sees its own folder alone: a classmate's folder and files are
// not there even for stat (Landlock has no right for stat, and a class's
// student folders are 0711: a cell read a classmate's progress in their
// files' sizes and times), as root or as a user; its own folder is its
// own, to read and write.
func TestAttackStatClassmate(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			f := setup(t)
			f.variant(t, v.programRoot)
			// A class's students/, beside the program's binary.
			students := filepath.Join(filepath.Dir(f.dir), "students")
			f.dir, f.other = filepath.Join(students, "alice"), filepath.Join(students, "bob")
			for _, d := range []string{f.dir, f.other} {
				os.MkdirAll(d, 0o755)
			}
			os.Chmod(students, 0o711)
			f.pol.Dir, f.pol.Veil = f.dir, students
			os.WriteFile(filepath.Join(f.dir, "mine.cu"), []byte("mine\n"), 0o644)
			os.WriteFile(filepath.Join(f.other, "solution.cu"), []byte("bob's work\n"), 0o644)
			theirs := filepath.Join(f.other, "solution.cu")
			out := f.gradeAs(t, v.grader, nil, false, "stat", theirs, f.other, filepath.Join(f.dir, "mine.cu"))
			if strings.Contains(out, "stat "+theirs+": 11 bytes") || !strings.Contains(out, "stat "+f.other+": no such file") {
				t.Errorf("a classmate's folder is there for stat:\n%s", out)
			}
			if !strings.Contains(out, "mine.cu: 5 bytes") {
				t.Errorf("the program's own folder is not there:\n%s", out)
			}
			if st, err := os.Stat(theirs); err != nil || st.Size() != 11 {
				t.Errorf("the classmate's file, seen from outside: %v", err)
			}
		})
	}
}

// TestMemoryClaimIsTrue (issue 38, door 7): without a cgroup a run's
// only memory limit is RLIMIT_DATA, which counts no shared memory: a
// program touches 320 MiB of it under a limit of 160. What the sandbox
// says of itself there says so, at the grader's start and in doctor,
// rather than "a runaway program slows the others" alone. (RLIMIT_AS
// would count it, and breaks CUDA, which maps address space far beyond
// memory; refusing shared memory by the system call filter would refuse
// CUDA's pinned host memory, which is shared memory.)
func TestMemoryClaimIsTrue(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			f := setup(t)
			f.variant(t, v.programRoot)
			f.pol.Memory = 160 << 20 // room for the Go runtime's own
			out := f.gradeAs(t, v.grader, nil, false, "shared", "320")
			if !strings.Contains(out, "shared: 320 MiB touched") {
				t.Skipf("shared memory is bounded here after all:\n%s", out)
			}
			rep := Report{Landlock: 7}
			for _, s := range []string{rep.String(), rep.Brief()} {
				if !strings.Contains(s, "memory is not bounded") {
					t.Errorf("a run without a cgroup touched 320 MiB of shared memory under a limit of 160, and the sandbox says: %s", s)
				}
			}
		})
	}
}

// TestAttackUnixDatagram: a program sends no datagram to a Unix socket
// outside its folder, where no connect is needed.
func TestAttackUnixDatagram(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			f := setup(t)
			f.variant(t, v.programRoot)
			dir := t.TempDir()
			os.Chmod(dir, 0o777)
			path := filepath.Join(dir, "log")
			pc, err := net.ListenPacket("unixgram", path)
			if err != nil {
				t.Fatal(err)
			}
			defer pc.Close()
			os.Chmod(path, 0o666)
			out := f.gradeAs(t, v.grader, nil, false, "unixgram", path)
			if got, err := queued(pc); err != nil || got || strings.Contains(out, "unixgram: <nil>") {
				t.Errorf("a datagram came from the sandbox (%v):\n%s", err, out)
			}
		})
	}
}

// TestCUDALooksForMPS: the CUDA driver makes a Unix stream socket at
// start and connects to the MPS server's, where none is, to find ENOENT
// (it stops with "no CUDA-capable device" if the socket is refused): the
// sandbox lets it make the socket, and answers the connect as a machine
// without MPS does.
func TestCUDALooksForMPS(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			f := setup(t)
			f.variant(t, v.programRoot)
			out := f.gradeAs(t, v.grader, nil, false, "mps", filepath.Join(t.TempDir(), "nvidia-mps", "control"))
			if !strings.Contains(out, "mps socket: <nil>") || !strings.Contains(out, "mps connect: no such file or directory") {
				t.Errorf("the driver's look for MPS should find none, as on a machine without it:\n%s", out)
			}
		})
	}
}

// TestAttackNetworkAsUser: graded by a user, a program sends no datagram
// to the grader's loopback (it did, while the start line said "no
// network").
func TestAttackNetworkAsUser(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			f := setup(t)
			f.variant(t, v.programRoot)
			pc, err := net.ListenPacket("udp", "127.0.0.1:0")
			if err != nil {
				t.Skip(err)
			}
			defer pc.Close()
			out := f.gradeAs(t, v.grader, nil, false, "udp", pc.LocalAddr().String())
			if got, err := queued(pc); err != nil || got {
				t.Errorf("a datagram came from the sandbox (%v):\n%s", err, out)
			}
		})
	}
}

// TestAttackInheritedFiles: a program inherits the ExtraFiles it is
// given and nothing else the grader holds open, even without O_CLOEXEC.
func TestAttackInheritedFiles(t *testing.T) {
	f := setup(t)
	secret := filepath.Join(f.other, "gradebook.db")
	os.WriteFile(secret, []byte("grades\n"), 0o600)
	leak, err := unix.Open(secret, unix.O_RDONLY, 0) // no O_CLOEXEC, as a C library might
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(leak)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	var out bytes.Buffer
	_, err = Runner{Policy: f.pol, Self: f.self}.Run(context.Background(), runner.Spec{
		Argv: []string{f.self}, Dir: f.dir, Timeout: 10 * time.Second, ExtraFiles: []*os.File{w},
		Env: []string{"SANDBOX_TEST_MODE=fds", "PATH=/usr/bin:/bin"},
	}, &out)
	if err != nil {
		t.Fatal(err)
	}
	line := out.String()
	if strings.Contains(line, "gradebook.db") {
		t.Errorf("the grader's open file reached the program: %s", line)
	}
	if !strings.Contains(line, "fds: 3=pipe:") || strings.Contains(line, " 4=") {
		t.Errorf("the program should have exactly its one extra file, as 3: %s", line)
	}
}

// TestAttackOtherRunsArguments: a program reads no other run's command
// line, where a classmate's hidden run shows the arguments the spec keeps
// from students (and the grader's own), whichever user the other run is.
func TestAttackOtherRunsArguments(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the classmate's run is another user's: needs root")
	}
	for _, v := range variants {
		if v.programRoot {
			continue // root's programs are root's
		}
		t.Run(v.name, func(t *testing.T) {
			f := setup(t)
			if v.grader {
				f.needUserPIDNS(t)
			}
			classmate := exec.Command("/bin/sh", "-c", "sleep 60; :", "hidden-run-args-42")
			classmate.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 61800, Gid: 61800, Groups: []uint32{}}}
			if err := classmate.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { classmate.Process.Kill(); classmate.Wait() }()
			out := f.gradeAs(t, v.grader, nil, false, "cmdlines", "hidden-run-", "args")
			if !strings.Contains(out, "cmdlines: read") {
				t.Fatalf("the program did not run:\n%s", out)
			}
			if strings.Contains(out, "cmdline of") {
				t.Errorf("the program read another run's command line:\n%s", out)
			}
		})
	}
}

// TestAttackSysVIPC: a run leaves no System V shared memory or message
// queue behind. They are no files (Landlock does not see them) and they
// outlive their process: a classmate's run (or the student's next cell,
// after a hidden run) read what one left there, and each segment held
// its memory after the run, counted by no limit.
func TestAttackSysVIPC(t *testing.T) {
	for i, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			f := setup(t)
			f.variant(t, v.programRoot)
			key := 0x4c450000 + os.Getpid()%4096*8 + i
			out := f.gradeAs(t, v.grader, nil, false, "sysv", fmt.Sprint(key))
			if !strings.Contains(out, "sysv: <nil> errno 0") {
				t.Fatalf("the program could not make its segment and queue (the attack did not run):\n%s", out)
			}
			if id, err := unix.SysvShmGet(key, 0, 0); err == nil {
				unix.SysvShmCtl(id, unix.IPC_RMID, nil)
				t.Errorf("a shared memory segment of the run outlived it")
			}
			if id, _, errno := unix.Syscall(unix.SYS_MSGGET, uintptr(key), 0, 0); errno == 0 {
				unix.Syscall(unix.SYS_MSGCTL, id, unix.IPC_RMID, 0)
				t.Errorf("a message queue of the run outlived it")
			}
		})
	}
}

// TestAttackPOSIXShm: a run whose user is its own (or under a grader
// that is not root) has a /dev/shm of its own, which it may write (the
// CUDA driver makes its events shared between processes there, Day 73's
// ipc-pool), and nothing it leaves there outlives it; a program running
// as root has the host's, read-only.
func TestAttackPOSIXShm(t *testing.T) {
	for i, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			f := setup(t)
			f.variant(t, v.programRoot)
			name := fmt.Sprintf("lessons-attack-%d-%d", os.Getpid(), i)
			out := f.gradeAs(t, v.grader, nil, false, "posixshm", name)
			left := "/dev/shm/" + name
			if _, err := os.Stat(left); err == nil {
				os.Remove(left)
				t.Errorf("a file the run wrote in /dev/shm outlived it:\n%s", out)
			}
			if !strings.Contains(out, "posixshm:") {
				t.Fatalf("the attack did not run:\n%s", out)
			}
			if v.programRoot && !strings.Contains(out, "posixshm: open") {
				t.Errorf("a program running as root wrote the host's /dev/shm:\n%s", out)
			}
			if !v.programRoot && !strings.Contains(out, "posixshm: <nil>") {
				// Where no mount namespace can be had, the host's stays read-only.
				t.Logf("the run could not write a /dev/shm of its own:\n%s", out)
			}
		})
	}
}

// TestAttackKeyring: a run may not use the kernel's keyrings. Its
// user's keyring outlives it (as root, the worker's user is the next
// student's; as a user, the grader's own), so a key left there reached
// the next run of that user.
func TestAttackKeyring(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			f := setup(t)
			f.variant(t, v.programRoot)
			out := f.gradeAs(t, v.grader, nil, false, "keyring")
			if !strings.Contains(out, "add_key: operation not permitted") || !strings.Contains(out, "request_key: operation not permitted") {
				t.Errorf("the run reached its user's keyring:\n%s", out)
			}
		})
	}
}

// TestAttackPtrace: a program traces no process, not even its own child
// (under compute-sanitizer, the tool shares its user).
func TestAttackPtrace(t *testing.T) {
	f := setup(t)
	out, _ := f.run(t, "trace", 10*time.Second)
	if !strings.Contains(out, "ptrace: operation not permitted") {
		t.Errorf("ptrace should be refused: %s", out)
	}
}

// TestAttackWriteExec: with NoWriteExec, a program gets no memory that
// is writable and executable, and makes no page executable after it
// wrote it (mmap, mprotect, pkey_mprotect); a page made read-only is
// still fine. Without it, it could.
func TestAttackWriteExec(t *testing.T) {
	f := setup(t)
	out, _ := f.run(t, "wx", 10*time.Second)
	if !strings.Contains(out, "mmap wx: <nil>") || !strings.Contains(out, "mprotect x: <nil>") {
		t.Errorf("without NoWriteExec the program should be able to: %s", out)
	}
	f.pol.NoWriteExec = true
	out, _ = f.run(t, "wx", 10*time.Second)
	for _, want := range []string{"mmap wx: operation not permitted", "mmap w: <nil>", "mprotect x: operation not permitted",
		"mprotect wx: operation not permitted", "pkey_mprotect x: operation not permitted", "mprotect r: <nil>"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

// TestClaimsAreTrue: what Verify claims holds against the attacks, as
// root and as a user, and what it does not see it does not claim.
func TestClaimsAreTrue(t *testing.T) {
	for _, asUser := range []bool{false, true} {
		t.Run(fmt.Sprintf("grader as a user: %v", asUser), func(t *testing.T) {
			f := setup(t)
			pol := f.policyFor(t, asUser)
			pol.DirFiles, pol.DirBytes = 300, 1<<20
			var rep Report
			out := f.grader(t, asUser, nil, graderRequest{Policy: pol, Self: f.self, Verify: true})
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if rep.Failed != "" {
				t.Fatalf("the probe failed: %s", rep.Failed)
			}
			if !rep.Terminal || !rep.Sockets {
				t.Errorf("no terminal and no sockets should be verified: %+v", rep)
			}
			// A mount namespace for the helper: a worker's user under a
			// root grader, a pid namespace under a user grader.
			ns := rep.Root || rep.PIDNS
			if !rep.Signals || rep.OwnDev != ns || (rep.DirFiles == 300) != ns {
				t.Errorf("signals, /dev and files (a mount namespace: %v): %+v", ns, rep)
			}
			if v, _ := llsys.LandlockGetABIVersion(); v > 0 && rep.Landlock != v {
				t.Errorf("Landlock v%d is in force, the report says %d", v, rep.Landlock)
			}
			if netnsOK() != rep.NetNS {
				t.Errorf("network namespaces work here (%v), the report says %v", netnsOK(), rep.NetNS)
			}
			if want := !asUser && os.Geteuid() == 0; rep.Root != want {
				t.Errorf("a user of its own: got %v, want %v (%+v)", rep.Root, want, rep)
			}
			// A user of its own per worker (root), or a pid namespace per
			// run (a grader that is not root, where user namespaces work):
			// nothing outlives a run either way.
			root := !asUser && os.Geteuid() == 0
			if want := !root && netnsOK() && countsPerUserNS(); rep.PIDNS != want || rep.Ends != (want || root) {
				t.Errorf("a pid namespace per run: got %v (ends: %v), want %v: %+v", rep.PIDNS, rep.Ends, want, rep)
			}
			// What is let through is not claimed.
			pol.Network, pol.Landlock = true, -1
			out = f.grader(t, asUser, nil, graderRequest{Policy: pol, Self: f.self, Verify: true})
			rep = Report{}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if rep.NetNS || rep.Landlock != 0 {
				t.Errorf("with the network allowed and no Landlock: %+v", rep)
			}
		})
	}
}

// TestClaimsWithoutPIDNS: a grader that is not root and gives its runs
// no pid namespace ($LESSONS_SANDBOX_PIDNS=off) claims neither a process
// limit per run nor that nothing outlives a run: the probe's process,
// left in a session of its own, outlives it.
func TestClaimsWithoutPIDNS(t *testing.T) {
	f := setup(t)
	pol := f.policyFor(t, true)
	out := f.grader(t, true, nil, graderRequest{Policy: pol, Self: f.self, Verify: true, Env: []string{"LESSONS_SANDBOX_PIDNS=off"}})
	var rep Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.Failed != "" || rep.PIDNS || rep.Ends {
		t.Errorf("without a pid namespace: %+v", rep)
	}
	if netnsOK() && !rep.NetNS {
		t.Errorf("without a pid namespace, a network namespace still: %+v", rep)
	}
	if s := rep.String(); !strings.Contains(s, "can outlive it") || strings.Contains(s, "per run") {
		t.Errorf("the report claims what was not verified: %s", s)
	}
	if s := rep.String(); !strings.Contains(s, "the machine's /dev") || !strings.Contains(s, "as many files in its folder as the disk holds") {
		t.Errorf("the report claims a /dev or a folder of its own: %s", s)
	}
	// Before Landlock's signal scope, the filter keeps the grader out of
	// the program's signals' reach.
	pol.Landlock = 5
	out = f.grader(t, true, nil, graderRequest{Policy: pol, Self: f.self, Verify: true, Env: []string{"LESSONS_SANDBOX_PIDNS=off"}})
	rep = Report{}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.Failed != "" || !rep.Signals {
		t.Errorf("Landlock v5 and no pid namespace: %+v", rep)
	}
}

// TestAttackHiddenDescriptor: under a tool (AllFDs: the tool's own
// descriptors to its target stay), a descriptor on a hidden file (the
// tool's log, opened without O_CLOEXEC) is still closed.
func TestAttackHiddenDescriptor(t *testing.T) {
	f := setup(t)
	logs := filepath.Join(f.other, "logs")
	os.Mkdir(logs, 0o755)
	// The tool's descriptors reach its target as the tool's own; here
	// the test hands them in as the grader's ExtraFiles.
	hidden, err := os.OpenFile(filepath.Join(logs, "sanitizer.log"), os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer hidden.Close()
	kept, err := os.Open(filepath.Join(f.other, "solution.cu"))
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close()
	f.pol.KeepFDs, f.pol.Hide = AllFDs, []string{logs}
	var b bytes.Buffer
	_, err = Runner{Policy: f.pol, Self: f.self}.Run(context.Background(), runner.Spec{
		Argv: []string{f.self}, Dir: f.dir, Timeout: 10 * time.Second, ExtraFiles: []*os.File{hidden, kept},
		Env: []string{"SANDBOX_TEST_MODE=fds", "PATH=/usr/bin:/bin"},
	}, &b)
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "sanitizer.log") {
		t.Errorf("the hidden log reached the program: %s", out)
	}
	if !strings.Contains(out, "solution.cu") {
		t.Errorf("with AllFDs the other descriptors stay: %s", out)
	}
}

// TestAttackOutliveRun: nothing a program starts outlives its run, even
// in a session of its own: as a user of its own (the grader, root, kills
// that user's processes) and under a grader that is not root (a pid
// namespace of its own: its processes die with it). A FIFO tells: its
// read end sees the end of the file once no process holds its write end.
func TestAttackOutliveRun(t *testing.T) {
	for _, v := range variants {
		if v.programRoot {
			continue // root's programs are root's: only a cgroup stops them
		}
		t.Run(v.name, func(t *testing.T) {
			f := setup(t)
			f.variant(t, v.programRoot)
			if v.grader {
				f.needUserPIDNS(t)
			}
			fifo := filepath.Join(f.dir, "held")
			if err := unix.Mkfifo(fifo, 0o666); err != nil {
				t.Skip(err)
			}
			os.Chmod(fifo, 0o666)
			r, err := os.OpenFile(fifo, os.O_RDONLY|unix.O_NONBLOCK, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			out := f.gradeAs(t, v.grader, nil, false, "outlive", fifo)
			if !strings.Contains(out, "outlive: child <nil>") {
				t.Fatalf("the program did not start its child:\n%s", out)
			}
			n, err := unix.Read(int(r.Fd()), make([]byte, 1))
			if n != 0 || err != nil {
				t.Errorf("a process the program started outlived its run (read: %d, %v):\n%s", n, err, out)
			}
		})
	}
}

// TestForkBombCountedPerRun: under a grader that is not root, a program's
// process limit counts its run's processes, not the grader's user's
// elsewhere (40 sleepers of that user outside the run), and the processes
// it started are gone when it ends.
func TestForkBombCountedPerRun(t *testing.T) {
	f := setup(t)
	f.needUserPIDNS(t)
	f.pol.Procs = 20
	pol := f.policyFor(t, true)
	for range 40 {
		s := exec.Command("/bin/sleep", "30")
		if os.Geteuid() == 0 {
			s.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}}}
		}
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Process.Kill(); s.Wait() })
	}
	before := map[int]bool{}
	for _, pid := range pidsOf(graderUser()) {
		before[pid] = true
	}
	out := f.grader(t, true, nil, graderRequest{Policy: pol, Self: f.self, Mode: "fork"})
	var n int
	if _, err := fmt.Sscanf(out[strings.Index(out, "fork: "):], "fork: refused after %d", &n); err != nil || n >= 40 || n < 5 {
		t.Errorf("the run should start its own 20 processes or so, whatever the user has elsewhere (%v):\n%s", err, out)
	}
	// The run's processes are this test's program (f.self, its argv[0]
	// kept by fork); the same user's processes of other tests running at
	// once (a corpus graded as nobody) are not the run's.
	left := 0
	for _, pid := range pidsOf(graderUser()) {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if arg0, _, _ := strings.Cut(string(cmd), "\x00"); !before[pid] && arg0 == f.self {
			left++
		}
	}
	if left > 0 {
		t.Errorf("%d processes of the grader's user outlived the run", left)
	}
}

// needUserPIDNS skips a test of what a pid namespace per run gives where
// a grader that is not root gets none (user namespaces refused to it, or
// Linux before 5.14): its probe then says that processes can outlive a
// run (TestClaimsAreTrue holds it to that).
func (f *fixture) needUserPIDNS(t *testing.T) {
	t.Helper()
	var rep Report
	out := f.grader(t, true, nil, graderRequest{Policy: f.policyFor(t, true), Self: f.self, Verify: true})
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !rep.PIDNS {
		t.Skipf("a grader that is not root gets no pid namespace here: %s", rep)
	}
}

// TestTimeoutSaysWhereTheThreadsWere: a run stopped at its time limit
// says where the program's threads were, read by a root grader and by
// one that is not (the program in a pid namespace under the grader's
// init). A child it waits for asleep in a known call is named by the
// call; one spinning in its own code shows only as running, so the
// runner stops each of the program's processes for an instant and names
// the file its code was in (the driver's library, for a
// synchronisation's spin): under the user grader the program is in a
// session of its own, which signalling the run's process group missed.
// The program is this binary, named as the sandbox's helper, and so
// left out.
func TestTimeoutSaysWhereTheThreadsWere(t *testing.T) {
	for _, v := range variants {
		if v.programRoot {
			continue
		}
		for _, c := range []struct {
			mode string
			says []string
		}{
			{"sleepchild", []string{"and was stopped; its threads then: sleep S in ", "nanosleep)"}},
			{"spinchild", []string{"and was stopped; its threads then: sh R at "}},
		} {
			t.Run(v.name+"/"+c.mode, func(t *testing.T) {
				f := setup(t)
				if v.grader {
					f.needUserPIDNS(t)
				}
				out := f.grader(t, v.grader, nil, graderRequest{Policy: f.policyFor(t, v.grader), Self: f.self, Mode: c.mode, Timeout: 3 * time.Second})
				for _, want := range c.says {
					if !strings.Contains(out, want) {
						t.Errorf("no %q: %s", want, out)
					}
				}
				if strings.Contains(out, "sandbox.test") {
					t.Errorf("the helper listed: %s", out)
				}
			})
		}
	}
}

// TestAttackFileCount: a run makes only so many files (Policy.DirFiles),
// in a file system of its own: one that made files until no inode was
// left on the grading disk made every build and run beside it fail. What
// it made is gone with it, and the grader's folder holds none of it.
// As a user of its own under a root grader, and under a user grader.
func TestAttackFileCount(t *testing.T) {
	for _, v := range variants {
		if v.programRoot {
			continue // LESSONS_SANDBOX_USERS=off: README's gaps
		}
		t.Run(v.name, func(t *testing.T) {
			f := setup(t)
			if v.grader {
				f.needUserPIDNS(t)
			}
			f.pol.DirFiles, f.pol.DirBytes = 500, 16<<20
			os.WriteFile(filepath.Join(f.dir, "given"), []byte("the grader's\n"), 0o644)
			out := f.gradeAs(t, v.grader, nil, false, "files")
			var n int
			i := strings.Index(out, "files: made ")
			if i < 0 {
				t.Fatalf("the program did not run:\n%s", out)
			}
			fmt.Sscanf(out[i:], "files: made %d", &n)
			if n >= 500 || !strings.Contains(out, "no space left") {
				t.Errorf("a run made %d files, its cap 500:\n%s", n, out)
			}
			t.Logf("%s", out[i:])
			ents, _ := os.ReadDir(f.dir)
			if len(ents) != 1 || ents[0].Name() != "given" {
				t.Errorf("the grader's folder holds what the run made: %d entries", len(ents))
			}
		})
	}
}

// devAllowed are the names a run's /dev may hold: the harmless devices,
// the links to its own descriptors, POSIX shared memory's folder, and
// the GPU's files (those of the GPU it was given alone: nvidiaN, as the
// driver's information names its minor).
func devAllowed(name string) bool {
	switch name {
	case "null", "zero", "full", "random", "urandom", "fd", "stdin", "stdout", "stderr", "shm", "nvidia-caps":
		return true
	}
	return strings.HasPrefix(name, "nvidia")
}

// TestAttackDevices: a run's /dev lists the devices it may use, not the
// machine's (its terminals, disks, and every GPU: a program that set
// CUDA_VISIBLE_DEVICES itself reached every GPU of the machine), as a
// user of its own under a root grader and under a user grader.
func TestAttackDevices(t *testing.T) {
	for _, v := range variants {
		if v.programRoot {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			f := setup(t)
			if v.grader {
				f.needUserPIDNS(t)
			}
			out := f.grader(t, v.grader, nil, graderRequest{Policy: f.policyFor(t, v.grader), Self: f.self, Mode: "lsdev", ProgEnv: []string{"CUDA_VISIBLE_DEVICES=0"}})
			i := strings.Index(out, "dev: ")
			if i < 0 {
				t.Fatalf("the program did not run:\n%s", out)
			}
			line, _, _ := strings.Cut(out[i+len("dev: "):], "\n")
			names, _, _ := strings.Cut(line, " (")
			var extra []string
			for _, n := range strings.Fields(names) {
				if !devAllowed(n) {
					extra = append(extra, n)
				}
			}
			if len(extra) > 0 {
				t.Errorf("a run's /dev lists %d devices it has no use for: %s", len(extra), strings.Join(extra, " "))
			}
			t.Logf("%s", line)
		})
	}
}

// TestAttackOtherGPUs: on a machine of two GPUs (files that stand for
// the driver's), a run given the second sees its device file alone of
// the two, and its CUDA_VISIBLE_DEVICES names it by UUID, whatever it
// sets then; given a name this cannot tell (a MIG instance), both stay.
func TestAttackOtherGPUs(t *testing.T) {
	dev, info := fakeGPUs(t)
	for _, v := range variants {
		if v.programRoot {
			continue
		}
		for _, c := range []struct{ given, see, hide, visible string }{
			{"1", "nvidia1", "nvidia0", "GPU-bbbb2222"},
			{"GPU-aaaa", "nvidia0", "nvidia1", "GPU-aaaa1111"},
			{"MIG-xyz", "nvidia0 nvidia1", "", "MIG-xyz"},
			{"", "nvidiactl", "nvidia0 nvidia1", ""}, // set, and empty: no GPU
		} {
			t.Run(v.name+"/"+c.given, func(t *testing.T) {
				f := setup(t)
				if v.grader {
					f.needUserPIDNS(t)
				}
				f.gpusSeen(t, v.grader, dev, info, c.given, c.see, c.hide, c.visible)
			})
		}
	}
}

// TestAttackGPUsOfTheCgroup: a GPU the grader may not open (a device
// cgroup's, as Slurm's ConstrainDevices sets; here a mode the grader's
// user lacks) is not counted, as CUDA does not count it: index 0 is then
// the second GPU of the bus.
func TestAttackGPUsOfTheCgroup(t *testing.T) {
	dev, info := fakeGPUs(t)
	os.Chmod(filepath.Join(dev, "nvidia0"), 0)
	f := setup(t)
	f.needUserPIDNS(t)
	f.gpusSeen(t, true, dev, info, "0", "nvidia1", "nvidia0", "GPU-bbbb2222")
}

// fakeGPUs makes files that stand for a /dev of two GPUs and for the
// driver's information on them.
func fakeGPUs(t *testing.T) (dev, info string) {
	fake, err := os.MkdirTemp("", "sandbox-gpus-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(fake) })
	os.Chmod(fake, 0o755)
	dev, info = filepath.Join(fake, "dev"), filepath.Join(fake, "gpus")
	os.MkdirAll(filepath.Join(dev, "shm"), 0o777)
	for _, n := range []string{"null", "zero", "urandom", "nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "tty", "sda"} {
		os.WriteFile(filepath.Join(dev, n), nil, 0o666)
		os.Chmod(filepath.Join(dev, n), 0o666)
	}
	for i, g := range []struct{ bus, uuid string }{{"0000:1b:00.0", "GPU-aaaa1111"}, {"0000:2c:00.0", "GPU-bbbb2222"}} {
		os.MkdirAll(filepath.Join(info, g.bus), 0o755)
		os.WriteFile(filepath.Join(info, g.bus, "information"), []byte(fmt.Sprintf("Model: \t\t NVIDIA H200\nGPU UUID: \t %s\nBus Location: \t %s\nDevice Minor: \t %d\n", g.uuid, g.bus, i)), 0o644)
	}
	return dev, info
}

// gpusSeen runs a program given CUDA_VISIBLE_DEVICES=given on the fake
// GPUs and wants it to see the device files see and none of hide, and
// its CUDA_VISIBLE_DEVICES to be visible.
func (f *fixture) gpusSeen(t *testing.T, asUser bool, dev, info, given, see, hide, visible string) {
	t.Helper()
	f.pol.Read = append(f.pol.Read, dev)
	out := f.grader(t, asUser, nil, graderRequest{Policy: f.policyFor(t, asUser), Self: f.self, Mode: "lsdev", Args: []string{dev},
		ProgEnv: []string{"CUDA_VISIBLE_DEVICES=" + given}, DevRoot: dev, GPUInfo: info})
	i := strings.Index(out, "dev: ")
	if i < 0 {
		t.Fatalf("the program did not run:\n%s", out)
	}
	line, _, _ := strings.Cut(out[i+len("dev: "):], "\n")
	names := strings.Fields(strings.Split(line, " (")[0])
	for _, n := range strings.Fields(see) {
		if !slices.Contains(names, n) {
			t.Errorf("the run does not see %s: %s", n, line)
		}
	}
	for _, n := range append(strings.Fields(hide), "tty", "sda") {
		if slices.Contains(names, n) {
			t.Errorf("the run sees %s: %s", n, line)
		}
	}
	if !strings.Contains(out, "visible: "+visible+"\n") {
		t.Errorf("its CUDA_VISIBLE_DEVICES should be %q:\n%s", visible, out)
	}
}

// TestAttackSignalGrader: a program that shares its user with the grader
// and has no pid namespace of its own (user namespaces refused, as
// Ubuntu's AppArmor does) and no Landlock signal scope (before ABI 6)
// could kill the grader, its parent, which died mid-grade. It may
// signal its own process and process group alone then: not by kill,
// tgkill, a pidfd or /proc/PID opened as one, nor the grader's group.
func TestAttackSignalGrader(t *testing.T) {
	needLandlock(t)
	f := setup(t)
	pol := f.policyFor(t, true)
	pol.Landlock = 5
	out := f.grader(t, true, nil, graderRequest{Policy: pol, Self: f.self, Mode: "signal", Args: []string{"own"}, Env: []string{"LESSONS_SANDBOX_PIDNS=off"}})
	if !strings.Contains(out, "own signals sent") {
		t.Errorf("the program may signal itself and its group:\n%s", out)
	}
	for _, how := range []string{"kill", "tgkill", "pidfd", "proc", "group", "setown", "ioctlown"} {
		t.Run(how, func(t *testing.T) {
			f := setup(t)
			pol := f.policyFor(t, true)
			pol.Landlock = 5
			out := f.grader(t, true, nil, graderRequest{Policy: pol, Self: f.self, Mode: "signal", Args: []string{how}, Env: []string{"LESSONS_SANDBOX_PIDNS=off"}})
			t.Logf("%s", out)
			if !strings.Contains(out, "grader: the program ended") || strings.Contains(out, ": <nil>") {
				t.Errorf("the program signalled the grader:\n%s", out)
			}
		})
	}
	// Without Landlock at all, nor its /proc rules: the grader's /proc
	// entries (its environment, its memory) are its user's, the program's.
	for _, ll := range []int{5, -1} {
		t.Run(fmt.Sprintf("environ, landlock %d", ll), func(t *testing.T) {
			f := setup(t)
			pol := f.policyFor(t, true)
			pol.Landlock = ll
			out := f.grader(t, true, nil, graderRequest{Policy: pol, Self: f.self, Mode: "signal", Args: []string{"environ"}, Env: []string{"LESSONS_SANDBOX_PIDNS=off", "GRADER_SECRET=lms-key"}})
			t.Logf("%s", out)
			if strings.Contains(out, "read the grader's secret") || !strings.Contains(out, "grader: the program ended") {
				t.Errorf("the program read the grader's environment:\n%s", out)
			}
		})
	}
}
