package runner

// A run stopped at its time limit said only "timed out": a correct
// program that hung once in a graded class (16 runs to a GPU, under the
// statistics library) left nothing to tell a deadlock from a slow GPU.
// So before the kill the runner notes where each thread of the program
// was, from what the kernel says of it in /proc (state, wait channel,
// system call). The program can rename its threads (comm), so the text
// is diagnostic, shown to the instructor, never judged.

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// maxThreadText bounds the text: a program with thousands of threads
// (a fork bomb's) still makes one line.
const maxThreadText = 600

// Thread is where one thread of a stopped program was.
type Thread struct {
	PID, TID int
	Comm     string // the thread's name (the program may set it)
	State    string // "S", "R", "D", ... from /proc/TID/stat
	Wchan    string // the kernel function it sleeps in; "" when running or unreadable
	Syscall  string // the system call it is in, by name; "" when none or unreadable
	Code     string // for a thread that was running: the file whose code it ran (CodeOfRunning)
	Caller   string // for a thread asleep on a futex: the driver's library, where a call of it waits there (CodeOfRunning)
}

func (t Thread) String() string {
	s := t.Comm + " " + t.State
	if t.Wchan != "" {
		s += " in " + t.Wchan
	}
	if t.Syscall != "" {
		s += " (" + t.Syscall + ")"
	}
	if t.Code != "" {
		s += " at " + t.Code
	}
	if t.Caller != "" {
		s += " from " + t.Caller
	}
	return s
}

// Threads lists the threads of root and of every process descended from
// it, as /proc shows them to the caller now; processes named skip (the
// sandbox's own helper) are left out. What cannot be read is left empty.
func Threads(procRoot string, root int, skip string) []Thread {
	var out []Thread
	for _, pid := range descendants(procRoot, root) {
		// The process's own name, not its first task's: ReadDir sorts
		// the tasks by name, so a thread 10000 comes before its main
		// thread 9998 and was listed before the skip was seen.
		if skip != "" && clean(readSmall(filepath.Join(procRoot, strconv.Itoa(pid), "comm")), 32) == skip {
			continue
		}
		tasks, _ := os.ReadDir(filepath.Join(procRoot, strconv.Itoa(pid), "task"))
		for _, e := range tasks {
			tid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			dir := filepath.Join(procRoot, strconv.Itoa(pid), "task", e.Name())
			t := Thread{PID: pid, TID: tid}
			_, t.State, _ = readStat(filepath.Join(dir, "stat"))
			t.Comm = clean(readSmall(filepath.Join(dir, "comm")), 32)
			if w := clean(readSmall(filepath.Join(dir, "wchan")), 64); w != "0" {
				t.Wchan = w
			}
			t.Syscall = syscallOf(readSmall(filepath.Join(dir, "syscall")))
			out = append(out, t)
		}
	}
	return out
}

// InDriver tells whether a thread was waiting in the GPU's driver: in
// an ioctl (how the CUDA driver asks the kernel module for everything:
// contexts, memory, its locks), asleep in a function of the NVIDIA
// kernel modules (os_acquire_rwlock_write, uvm_..., nv_...), or spinning
// in the driver's own library (libcuda.so: a synchronisation spins there
// on the CPU, the default where a process has fewer contexts than the
// machine has cores, and shows only as a running thread), or asleep on
// a futex under a call of that library (a synchronisation with the
// blocking schedule: with driver 580 the calling thread waits on a futex
// that the driver's own thread wakes, session 25). A program
// stopped at its time limit with a thread there may have been waiting
// for a lock that its neighbours held, not hanging by itself.
func (t Thread) InDriver() bool {
	if t.Syscall == "ioctl" || strings.HasPrefix(t.Code, "libcuda.so") || strings.HasPrefix(t.Caller, "libcuda.so") {
		return true
	}
	for _, p := range driverWchans {
		if strings.HasPrefix(t.Wchan, p) {
			return true
		}
	}
	return false
}

// driverWchans begin the names of the NVIDIA kernel modules' functions
// that a thread sleeps in (nvidia.ko's os_ layer, nvidia-uvm's uvm_, the
// rest's nv and _nv).
var driverWchans = []string{"os_acquire_", "os_wait_", "os_delay", "uvm_", "nv_", "nvidia_", "_nv"}

// InDriver tells whether any of threads was waiting in the GPU's driver
// (Thread.InDriver). Threads a program chose to block there tell it
// nothing it can use: such a run is only made again, alone.
func InDriver(ts []Thread) bool {
	for _, t := range ts {
		if t.InDriver() {
			return true
		}
	}
	return false
}

// CodeOfRunning fills in Code for each thread of ts that was running
// (state R: a spin, which neither a system call nor a wait channel
// shows) with the name of the file whose code it was running: the CUDA
// driver's library where a synchronisation spins waiting for the GPU, or
// the program's own code. /proc shows a thread's program counter only
// while the thread is off the CPU, so each process of ts is stopped
// first (by its own pid: the program may be in a session of its own,
// under a pid namespace's init) and let go on after (the run is being
// stopped anyway). Threads that do not stop within a moment are left as
// they were. It reads what Threads does, with the same rights.
//
// It fills in Caller for each thread asleep on a futex (a lock's or a
// condition's wait, in the C library) whose stack holds, near its top,
// a return into the driver's library's code: a blocking synchronisation
// waits so. The driver's own threads (named "cuda...") are left out:
// they live in its library and wait there in every CUDA program. A
// program that keeps such an address in its own frames on purpose only
// has its run made again alone.
func CodeOfRunning(ts []Thread) {
	const procRoot = "/proc" // the processes signalled are this machine's
	maps := map[int][]mapping{}
	mapsOf := func(pid int) []mapping {
		m, seen := maps[pid]
		if !seen {
			m = readMaps(filepath.Join(procRoot, strconv.Itoa(pid), "maps"))
			maps[pid] = m
		}
		return m
	}
	var running []int
	for i, t := range ts {
		switch {
		case t.State == "R":
			running = append(running, i)
		case t.Syscall == "futex" && !strings.HasPrefix(t.Comm, "cuda"):
			ts[i].Caller = driverCaller(procRoot, t, mapsOf(t.PID))
		}
	}
	if len(running) == 0 {
		return
	}
	signal := func(sig unix.Signal) {
		for _, pid := range processes(ts) {
			_ = unix.Kill(pid, sig)
		}
	}
	signal(unix.SIGSTOP)
	defer signal(unix.SIGCONT)
	deadline := time.Now().Add(200 * time.Millisecond)
	for _, i := range running {
		t := &ts[i]
		dir := filepath.Join(procRoot, strconv.Itoa(t.PID), "task", strconv.Itoa(t.TID))
		for {
			if _, st, ok := readStat(filepath.Join(dir, "stat")); !ok || st == "T" || st == "t" || time.Now().After(deadline) {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		pc, ok := programCounter(readSmall(filepath.Join(dir, "syscall")))
		if !ok {
			continue
		}
		for _, r := range mapsOf(t.PID) {
			if pc >= r.start && pc < r.end {
				t.Code = clean(filepath.Base(r.path), 64)
				break
			}
		}
	}
}

// stackScan is how much of a sleeping thread's stack, from its stack
// pointer up, driverCaller reads: the C library's lock or condition wait
// and its wrapper of the system call take a few hundred bytes below the
// frame of the driver's function that called them.
const stackScan = 8 << 10

// driverCaller names the driver's library (libcuda.so...) when a word of
// the top stackScan bytes of t's stack (a /proc/TID/syscall line's stack
// pointer) is an address in that library's executable code, a return
// into it; "" otherwise, or when the stack cannot be read (the memory of
// a process the caller may not trace).
func driverCaller(procRoot string, t Thread, m []mapping) string {
	var code []mapping
	for _, r := range m {
		if r.exec && strings.HasPrefix(filepath.Base(r.path), "libcuda.so") {
			code = append(code, r)
		}
	}
	if len(code) == 0 {
		return ""
	}
	sp, ok := stackPointer(readSmall(filepath.Join(procRoot, strconv.Itoa(t.PID), "task", strconv.Itoa(t.TID), "syscall")))
	if !ok {
		return ""
	}
	f, err := os.Open(filepath.Join(procRoot, strconv.Itoa(t.PID), "mem"))
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, stackScan)
	n, _ := f.ReadAt(buf, int64(sp&^7))
	for i := 0; i+8 <= n; i += 8 {
		w := binary.LittleEndian.Uint64(buf[i:])
		for _, r := range code {
			if w >= r.start && w < r.end {
				return clean(filepath.Base(r.path), 64)
			}
		}
	}
	return ""
}

// stackPointer reads the stack pointer from a /proc/TID/syscall line of
// a thread in a call ("NR six-args sp pc"): the field before the last.
func stackPointer(line string) (uint64, bool) {
	f := strings.Fields(line)
	if len(f) != 9 {
		return 0, false
	}
	sp, err := strconv.ParseUint(strings.TrimPrefix(f[7], "0x"), 16, 64)
	return sp, err == nil && sp != 0 && sp < 1<<62
}

// processes are the processes of ts, each once.
func processes(ts []Thread) []int {
	var out []int
	for _, t := range ts {
		if !slices.Contains(out, t.PID) {
			out = append(out, t.PID)
		}
	}
	return out
}

// programCounter reads the user-space program counter from a
// /proc/TID/syscall line: its last field, whether the thread is in a
// call ("NR args... sp pc") or stopped outside one ("-1 sp pc"); a
// running thread's line ("running") has none.
func programCounter(line string) (uint64, bool) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return 0, false
	}
	pc, err := strconv.ParseUint(strings.TrimPrefix(f[len(f)-1], "0x"), 16, 64)
	return pc, err == nil && pc != 0
}

// mapping is one line of /proc/PID/maps that maps a file.
type mapping struct {
	start, end uint64
	exec       bool // mapped executable (its permissions hold x)
	path       string
}

// readMaps reads the file mappings of /proc/PID/maps (the first 256 KiB:
// a program with more mappings than that is named by those it has first).
func readMaps(path string) []mapping {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	n, _ := io.ReadFull(f, buf)
	var out []mapping
	for _, line := range strings.Split(string(buf[:n]), "\n") {
		// start-end perms offset dev inode path
		f := strings.Fields(line)
		if len(f) < 6 || !strings.HasPrefix(f[5], "/") {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, mapping{start, end, len(f[1]) > 2 && f[1][2] == 'x', strings.Join(f[5:], " ")})
	}
	return out
}

// ThreadText says in one line where threads were: identical threads
// (a pool of workers) once, with a count.
func ThreadText(ts []Thread) string {
	var order []string
	count := map[string]int{}
	for _, t := range ts {
		s := t.String()
		if count[s] == 0 {
			order = append(order, s)
		}
		count[s]++
	}
	var b strings.Builder
	for i, s := range order {
		part := s
		if n := count[s]; n > 1 {
			part = fmt.Sprintf("%d× %s", n, s)
		}
		if i > 0 {
			part = ", " + part
		}
		if b.Len()+len(part) > maxThreadText {
			fmt.Fprintf(&b, ", and %d more", len(order)-i)
			break
		}
		b.WriteString(part)
	}
	return b.String()
}

// descendants lists root and every process below it, parents first, from
// each process's parent in /proc/PID/stat.
func descendants(procRoot string, root int) []int {
	entries, _ := os.ReadDir(procRoot)
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _, ok := readStat(filepath.Join(procRoot, e.Name(), "stat")); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	out := []int{root}
	for i := 0; i < len(out) && len(out) < 4096; i++ {
		kids := children[out[i]]
		sort.Ints(kids)
		out = append(out, kids...)
	}
	return out
}

// readStat reads a /proc stat file's parent and state. The name field
// may hold spaces and parentheses: the fields after it start at its last
// ')'.
func readStat(path string) (ppid int, state string, ok bool) {
	s := readSmall(path)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, "", false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, f[0], err == nil
}

func readSmall(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 512)
	n, _ := f.Read(buf)
	return strings.TrimSpace(string(buf[:n]))
}

// clean keeps a name to printable ASCII (the program chose its threads'),
// at most max bytes: a kernel function's name may be long
// ("poll_schedule_timeout.constprop.0").
func clean(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '?'
		}
		return r
	}, s)
	if len(s) > max {
		s = s[:max]
	}
	return s
}

// syscallOf names the system call of a /proc/TID/syscall line ("202 0x...
// ..." in one, "-1 sp pc" blocked outside any, "running").
func syscallOf(line string) string {
	f := strings.Fields(line)
	if len(f) == 0 || f[0] == "running" || f[0] == "-1" {
		return ""
	}
	nr, err := strconv.Atoi(f[0])
	if err != nil {
		return ""
	}
	if name, ok := syscallNames[nr]; ok {
		return name
	}
	return "syscall " + f[0]
}

// syscallNames names the calls a blocked program is usually in.
var syscallNames = func() map[int]string {
	m := map[int]string{
		unix.SYS_READ: "read", unix.SYS_WRITE: "write", unix.SYS_FUTEX: "futex",
		unix.SYS_PPOLL: "ppoll", unix.SYS_EPOLL_PWAIT: "epoll_pwait",
		unix.SYS_IOCTL: "ioctl", unix.SYS_NANOSLEEP: "nanosleep",
		unix.SYS_CLOCK_NANOSLEEP: "clock_nanosleep", unix.SYS_WAIT4: "wait4",
		unix.SYS_WAITID: "waitid", unix.SYS_PSELECT6: "pselect6",
		unix.SYS_SCHED_YIELD: "sched_yield", unix.SYS_MMAP: "mmap",
		unix.SYS_MUNMAP: "munmap", unix.SYS_OPENAT: "openat", unix.SYS_CLOSE: "close",
		unix.SYS_RECVMSG: "recvmsg", unix.SYS_SENDMSG: "sendmsg",
		unix.SYS_RT_SIGTIMEDWAIT: "rt_sigtimedwait", unix.SYS_MADVISE: "madvise",
		unix.SYS_WRITEV: "writev", unix.SYS_PREAD64: "pread64",
		unix.SYS_EXIT_GROUP: "exit_group", unix.SYS_CLONE: "clone",
	}
	for nr, name := range archSyscallNames {
		m[nr] = name
	}
	return m
}()
