package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A program blocked reading a pipe nobody writes: the listing names its
// thread, the read and the kernel's wait, read as the runner reads them.
func TestThreadsOfABlockedProgram(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cmd := exec.Command("sh", "-c", "exec cat")
	cmd.Stdin = r
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	// Wait for the event (cat in its read), not for a time.
	sys := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "syscall")
	for deadline := time.Now().Add(time.Minute); ; {
		if syscallOf(readSmall(sys)) == "read" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cat never blocked in read: %q", readSmall(sys))
		}
		time.Sleep(10 * time.Millisecond)
	}
	ts := Threads("/proc", cmd.Process.Pid, "")
	if len(ts) != 1 || ts[0].Comm != "cat" || ts[0].State != "S" || ts[0].Syscall != "read" || !strings.Contains(ts[0].Wchan, "pipe") {
		t.Fatalf("threads = %+v", ts)
	}
	if got := ThreadText(ts); !strings.HasPrefix(got, "cat S in ") || !strings.HasSuffix(got, "(read)") {
		t.Errorf("text = %q", got)
	}
}

// The runner lists a timed-out program's threads in its reason, the
// processes it started included.
func TestTimeoutSaysWhereTheThreadsWere(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	res, _ := run(t, Spec{Argv: []string{"sh", "-c", "cat; :"}, Stdin: r, Timeout: 500 * time.Millisecond})
	if !res.TimedOut || !strings.Contains(res.Threads, "sh S") || !strings.Contains(res.Threads, "cat ") {
		t.Fatalf("res = %+v", res)
	}
	if got := res.Reason(500*time.Millisecond, 0); !strings.HasPrefix(got, "timed out after 500ms and was stopped; its threads then: sh S") {
		t.Errorf("reason = %q", got)
	}
	if res.InDriver {
		t.Errorf("a program blocked in a read was taken for one waiting in the GPU's driver: %+v", res)
	}
}

// A fake /proc: a name with ") " in it, a helper left out, its child
// kept, identical threads counted, a program's own name made printable.
func TestThreadsFromAFakeProc(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the fake calls are numbered as on amd64")
	}
	root := t.TempDir()
	task := func(pid, tid, ppid int, comm, state, wchan, sys string) {
		dir := filepath.Join(root, strconv.Itoa(pid), "task", strconv.Itoa(tid))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		stat := strconv.Itoa(tid) + " (" + comm + ") " + state + " " + strconv.Itoa(ppid) + " 1 1"
		for name, s := range map[string]string{"stat": stat, "comm": comm + "\n", "wchan": wchan, "syscall": sys} {
			os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644)
		}
		if pid == tid {
			os.WriteFile(filepath.Join(root, strconv.Itoa(pid), "stat"), []byte(stat), 0o644)
			os.WriteFile(filepath.Join(root, strconv.Itoa(pid), "comm"), []byte(comm+"\n"), 0o644)
		}
	}
	task(10, 10, 1, "lessons", "S", "do_wait", "61 0x0")
	task(10, 11, 1, "lessons", "S", "futex_wait_queue", "202 0x0")
	// The helper's thread 100 sorts before its main thread 98 by name.
	task(98, 98, 10, "lessons", "S", "do_wait", "61 0x0")
	task(98, 100, 10, "lessons", "S", "futex_wait_queue", "202 0x0")
	task(12, 12, 10, "a) S 1 (x", "S", "futex_wait_queue", "202 0x1 0x2")
	task(12, 13, 10, "cuda-EvtHandlr", "S", "poll_schedule_timeout.constprop.0", "7 0x0")
	task(12, 14, 10, "cuda-EvtHandlr", "S", "poll_schedule_timeout.constprop.0", "7 0x0")
	task(12, 15, 10, "allocstats\x1b[2J", "S", "pipe_write", "1 0x3")
	task(12, 16, 10, "spin", "R", "0", "running")
	task(99, 99, 1, "other", "S", "do_wait", "61 0x0")
	got := ThreadText(Threads(root, 10, "lessons"))
	want := "a) S 1 (x S in futex_wait_queue (futex), 2× cuda-EvtHandlr S in poll_schedule_timeout.constprop.0 (poll), allocstats?[2J S in pipe_write (write), spin R"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// A fork bomb's thousand threads still make one bounded line.
func TestThreadTextIsBounded(t *testing.T) {
	var ts []Thread
	for i := 0; i < 1000; i++ {
		ts = append(ts, Thread{Comm: "bomb" + strconv.Itoa(i), State: "R"})
	}
	got := ThreadText(ts)
	if len(got) > maxThreadText+40 || !strings.HasSuffix(got, " more") {
		t.Errorf("len %d: %q", len(got), got[len(got)-40:])
	}
}

// What the grader tells apart at a run's time limit: a program waiting in
// the GPU's driver (the block-pool, its main thread asleep in the
// driver's lock inside an ioctl; a thread in a UVM fault) against one
// hanging in its own code (a spin, a deadlock on its own futex, a sleep),
// read from a fake /proc as the runner reads the real one.
func TestInDriver(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the fake calls are numbered as on amd64")
	}
	cases := []struct {
		name    string
		threads [][3]string // state, wchan, syscall line
		want    bool
	}{
		{"the driver's lock, in an ioctl", [][3]string{{"D", "os_acquire_rwlock_write", "16 0x3 0xc0"}, {"S", "poll_schedule_timeout.constprop.0", "7 0x0"}}, true},
		{"an ioctl, the function unreadable", [][3]string{{"S", "0", "16 0x3 0xc0"}}, true},
		{"a UVM fault, outside any call", [][3]string{{"D", "uvm_va_block_service_locked", "-1 0x0 0x0"}}, true},
		{"a spin in its own code", [][3]string{{"R", "0", "running"}, {"S", "poll_schedule_timeout.constprop.0", "7 0x0"}}, false},
		{"its own deadlock", [][3]string{{"S", "futex_wait_queue", "202 0x1 0x2"}, {"S", "futex_wait_queue", "202 0x1 0x2"}}, false},
		{"a sleep", [][3]string{{"S", "hrtimer_nanosleep", "230 0x0"}}, false},
	}
	for i, c := range cases {
		root := t.TempDir()
		pid := 100 + i
		for j, th := range c.threads {
			tid := pid + j
			dir := filepath.Join(root, strconv.Itoa(pid), "task", strconv.Itoa(tid))
			os.MkdirAll(dir, 0o755)
			stat := strconv.Itoa(tid) + " (prog) " + th[0] + " 1 1 1"
			os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644)
			os.WriteFile(filepath.Join(dir, "comm"), []byte("prog\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "wchan"), []byte(th[1]), 0o644)
			os.WriteFile(filepath.Join(dir, "syscall"), []byte(th[2]), 0o644)
			if j == 0 {
				os.WriteFile(filepath.Join(root, strconv.Itoa(pid), "stat"), []byte(stat), 0o644)
			}
		}
		ts := Threads(root, pid, "")
		if len(ts) != len(c.threads) {
			t.Fatalf("%s: threads = %+v", c.name, ts)
		}
		if got := InDriver(ts); got != c.want {
			t.Errorf("%s: InDriver = %v, want %v (%s)", c.name, got, c.want, ThreadText(ts))
		}
	}
}
