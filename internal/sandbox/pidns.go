package sandbox

// A grader that is not root has no user per worker to kill at the end of
// a run, and its programs all count against its one user's process limit:
// a fork bomb's daemons (setsid, a double fork) outlived their run and
// held that limit, and the rest of the class could not start (measured on
// an H200, issue 23). So each of its runs gets a pid namespace of its
// own, inside the user namespace it has for its network: the helper is
// the namespace's first process (its init) and starts the program under
// it; when the program ends, the init ends, and the kernel kills every
// process left in the namespace before the init is reaped. From Linux
// 5.14 a process limit counts the processes of a user in one user
// namespace, so the limit the helper sets is the run's alone.
//
// The init mounts a /proc of the namespace's own (in a mount namespace of
// its own) before anything else: Landlock's all-threads restriction (psx)
// lists /proc/PID/task by the pid the namespace gives, and hung on the
// host's /proc; and the program's /proc/self is then its own.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
	"kernel.org/pub/linux/libs/security/libcap/psx"

	"github.com/cudalessons/lessons/internal/runner"
)

// envPIDNSTry makes Helper try what the init of a run does first (mount
// a /proc in the namespaces it was started in) and exit: 0 when it could.
const envPIDNSTry = "LESSONS_SANDBOX_PIDNS_TRY"

// usePIDNS reports whether a grader that is not root gives each run a pid
// namespace: the kernel counts processes per user namespace (5.14), user
// namespaces are allowed, a /proc could be mounted in one, and
// $LESSONS_SANDBOX_PIDNS is not off. Tried once per process, with the
// first helper binary asked about.
func usePIDNS(self string) bool {
	pidnsOnce.Do(func() { pidnsOn = canPIDNS(self) })
	return pidnsOn
}

var (
	pidnsOnce sync.Once
	pidnsOn   bool
)

func canPIDNS(self string) bool {
	if os.Geteuid() == 0 || os.Getenv("LESSONS_SANDBOX_PIDNS") == "off" || !countsPerUserNS() {
		return false
	}
	cmd := exec.Command(self)
	cmd.Env = []string{envPIDNSTry + "=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	withPIDNS(cmd.SysProcAttr)
	return cmd.Run() == nil
}

// withPIDNS starts the helper as the first process of a pid namespace of
// its own, in a mount namespace of its own and the user namespace of the
// run (one is made if the network's did not). It keeps CAP_SYS_ADMIN in
// that user namespace across its exec (an ambient capability), to mount
// the namespace's /proc; it drops every capability before it starts the
// program's helper.
func withPIDNS(a *syscall.SysProcAttr) {
	if a.Cloneflags&syscall.CLONE_NEWUSER == 0 {
		withUserNS(a)
	}
	a.Cloneflags |= syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
	a.AmbientCaps = append(a.AmbientCaps, unix.CAP_SYS_ADMIN)
}

// dropCaps drops every capability of this process, on every thread.
func dropCaps() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	_, _, errno := psx.Syscall3(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0)
	runtime.KeepAlive(&hdr)
	runtime.KeepAlive(&data)
	if errno != 0 {
		return fmt.Errorf("dropping the init's capabilities: %w", errno)
	}
	return nil
}

// countsPerUserNS reports whether this kernel counts RLIMIT_NPROC per user
// namespace (Linux 5.14, "Reimplement RLIMIT_NPROC on top of ucounts").
func countsPerUserNS() bool {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return false
	}
	return kernelAtLeast(unix.ByteSliceToString(u.Release[:]), 5, 14)
}

// kernelAtLeast compares a release such as "6.8.0-45-generic" with
// major.minor.
func kernelAtLeast(release string, major, minor int) bool {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(strings.TrimRightFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// mountProc gives the mount namespace it runs in a /proc of its pid
// namespace (with the options opts), its mounts first made private so
// that nothing reaches the grader's.
func mountProc(opts string) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the run's mounts private: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, opts); err != nil {
		return fmt.Errorf("mounting the run's /proc: %w", err)
	}
	return nil
}

// mountShm gives the run's mount namespace an empty /dev/shm of its own
// (a tmpfs of 64 MiB, the size of a file the run may write), and says
// whether it could. POSIX shared memory (shm_open) is files there, and
// so are the CUDA driver's events shared between processes
// (cudaIpcGetEventHandle: Day 73's ipc-pool): a run may write its own,
// and what it leaves goes with its namespace. The host's /dev/shm is
// every run's, so where this fails the run keeps reading it alone.
func mountShm() bool {
	return unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=64m,mode=1777") == nil
}

// ownShm records that the run's /dev/shm is its own, for p and for the
// policy of a tool's program under it (the same mount namespace).
func (p *Policy) ownShm(own bool) {
	p.OwnShm = own
	if p.Inner != nil {
		p.Inner.OwnShm = own
	}
}

// initRun is the helper as the first process of the run's pid namespace:
// it mounts the namespace's /proc, starts this binary again as the helper
// of p (which restricts itself and becomes the program, in a session of
// its own), reaps every process left to it, passes the signals the grader
// sends on to the program, and when the program ends writes how it ended
// to p.StatusFD and exits (which ends every process of the namespace).
// It never returns but with an error.
func initRun(p Policy) error {
	if err := mountProc(""); err != nil {
		return err
	}
	if err := ownMounts(p); err != nil {
		return err
	}
	// After the run's own /dev: mounted on the shm folder bound there.
	shm := mountShm()
	if err := dropCaps(); err != nil {
		return err
	}
	// Nothing of the run may read or trace this process (it has every
	// capability in the run's user namespace): Landlock and the filter
	// refuse it already; this makes its /proc files the kernel's.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_DUMPABLE): %w", err)
	}
	// The program's helper gets the program's descriptors (0 to 2 and
	// its KeepFDs, or all with AllFDs); the status descriptor, and any
	// other, stays here.
	status := p.StatusFD
	var files []uintptr
	for _, fd := range openFDs() {
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err != nil || flags&unix.FD_CLOEXEC != 0 {
			continue // the listing's own, or this runtime's
		}
		if fd == status || p.KeepFDs != AllFDs && fd >= 3+p.KeepFDs {
			unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
			continue
		}
		for len(files) < fd {
			files = append(files, ^uintptr(0)) // closed in the child
		}
		files = append(files, uintptr(fd))
	}
	inner := p
	inner.PIDNS, inner.StatusFD, inner.OwnProc = false, 0, true
	inner.ownShm(shm)
	data, err := json.Marshal(inner)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	os.Setenv(envPolicy, string(data))
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	pid, err := syscall.ForkExec(self, os.Args, &syscall.ProcAttr{
		Env: os.Environ(), Files: files,
		// A session of its own: the program's id is its session's, as
		// when it is not under an init.
		Sys: &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		return fmt.Errorf("starting the program's helper: %w", err)
	}
	for _, fd := range files[min(3, len(files)):] {
		if fd != ^uintptr(0) {
			unix.Close(int(fd)) // the program's: this process holds none open
		}
	}
	go func() {
		for s := range sigs {
			syscall.Kill(-pid, s.(syscall.Signal))
		}
	}()
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("waiting for the program: %w", err)
		}
		if got != pid {
			continue // an orphan of the program's, reaped
		}
		switch {
		case ws.Signaled():
			reportStatus(status, "signal "+strconv.Itoa(int(ws.Signal())))
			os.Exit(128 + int(ws.Signal()))
		case ws.Exited():
			reportStatus(status, "exit "+strconv.Itoa(ws.ExitStatus()))
			os.Exit(ws.ExitStatus())
		}
	}
}

func reportStatus(fd int, s string) {
	if fd > 2 {
		unix.Write(fd, []byte(s))
	}
}

// readStatus applies what a run's init wrote on how the program ended:
// the init's own exit says it only in part (an init cannot die of the
// program's signal). Nothing written (the init itself was killed, at a
// time limit) leaves res as it is.
func readStatus(r *os.File, res *runner.Result) {
	if r == nil || res == nil {
		return
	}
	r.SetReadDeadline(time.Now().Add(time.Second)) // every writer is gone: never needed
	buf := make([]byte, 64)
	n, _ := r.Read(buf)
	kind, num, ok := strings.Cut(string(buf[:n]), " ")
	v, err := strconv.Atoi(num)
	if !ok || err != nil {
		return
	}
	switch kind {
	case "signal":
		res.Signal, res.ExitCode = syscall.Signal(v), -1
	case "exit":
		res.Signal, res.ExitCode = 0, v
	}
}
