// Package runner runs a program safely: in its own process group, killed
// whole on timeout or cancellation, with its output streamed and capped.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// MaxJudgedOutput is how much a judged program (an exercise, a student's
// file) or compute-sanitizer may print before it is stopped: enough for
// any exercise's report, little enough to keep a class's in memory.
const MaxJudgedOutput = 1 << 20

// Spec says what to run and within which limits.
type Spec struct {
	Argv []string
	Dir  string
	Env  []string // nil: the tool's own environment
	// Timeout is the wall-clock limit; 0 means none.
	Timeout time.Duration
	// MaxOutput is how many bytes of stdout and stderr together are kept;
	// a program that prints more is stopped. 0 means 8 MiB.
	MaxOutput int64
	// Stdin is the program's input; nil means none.
	Stdin io.Reader
	// Stderr, when set, gets the program's standard error apart from its
	// output (the nvcc wrapper keeps nvcc's two streams apart, as a shell
	// pipe in a cell expects); MaxOutput counts both.
	Stderr io.Writer
	// ExtraFiles are open files the program inherits as descriptors 3,
	// 4, ... (exec.Cmd's ExtraFiles): the statistics record's channel. A
	// sandbox passes exactly these through and closes every other
	// descriptor above 2.
	ExtraFiles []*os.File
	// SameGroup keeps the program in the caller's process group, for a
	// helper (such as the nvcc wrapper) whose caller is already limited.
	SameGroup bool
	// Prepare, when set, may change the command just before it starts
	// (a sandbox sets its namespaces and user there).
	Prepare func(*exec.Cmd)
	// Started, when set, is told the program's process id as soon as it
	// has started (a watcher of the GPU's view of that process).
	Started func(pid int)
	// Cgroup, when set, is a cgroup (version 2) folder, open, that the
	// program starts in (CLONE_INTO_CGROUP) where the runner gives it
	// none of its own: an outside witness counts its calls by its cgroup.
	Cgroup *os.File
	// Grouped, when set, is told the folder of the cgroup the program
	// starts in (Cgroup's, or the runner's own), before it starts.
	Grouped func(dir string)
	// Stop, when set, kills every process of the program at once, those
	// that left its process group included (a sandbox's cgroup). It is
	// called when the program is stopped for time, output or
	// cancellation, before its group is.
	Stop func()
	// Helper names (as /proc's comm shows it) a process of the sandbox's
	// own between the runner and the program: left out of the threads a
	// timed-out run lists.
	Helper string
}

// Result is how a run ended.
type Result struct {
	ExitCode int // -1 when killed by a signal
	Signal   syscall.Signal
	TimedOut bool
	// Truncated is set when the output passed MaxOutput and the program was
	// stopped for it.
	Truncated bool
	Canceled  bool
	// OutOfMemory is set by a sandbox whose memory limit the program
	// passed (it was killed for it).
	OutOfMemory bool
	Duration    time.Duration
	// Threads says, for a run stopped at its time limit, where each of
	// its threads was just before (Thread's String, joined): diagnostic
	// text from /proc, shown, never judged.
	Threads string
	// InDriver says, for a run stopped at its time limit, that one of its
	// threads was then waiting in the GPU's driver (InDriver): perhaps
	// for a lock its neighbours held, so not its own hang for certain.
	InDriver bool
}

// OK reports whether the program exited 0 on its own.
func (r *Result) OK() bool {
	return r.ExitCode == 0 && !r.TimedOut && !r.Truncated && !r.Canceled && r.Signal == 0
}

// Reason says in words why a run failed, or "" when it did not.
func (r *Result) Reason(timeout time.Duration, maxOutput int64) string {
	switch {
	case r.TimedOut && r.Threads != "":
		return fmt.Sprintf("timed out after %s and was stopped; its threads then: %s", timeout, r.Threads)
	case r.TimedOut:
		return fmt.Sprintf("timed out after %s and was stopped", timeout)
	case r.Truncated:
		return fmt.Sprintf("printed more than %d bytes and was stopped", maxOutput)
	case r.Canceled:
		return "interrupted"
	case r.OutOfMemory:
		return "used more memory than its limit and was killed"
	case r.Signal != 0:
		return fmt.Sprintf("killed by signal %d (%s)", int(r.Signal), r.Signal)
	case r.ExitCode != 0:
		return fmt.Sprintf("exit status %d", r.ExitCode)
	}
	return ""
}

// Runner runs programs. It is the seam tests replace.
type Runner interface {
	Run(ctx context.Context, spec Spec, out io.Writer) (*Result, error)
}

// Exec runs real processes.
type Exec struct{}

var _ Runner = Exec{}

const defaultMaxOutput = 8 << 20

// Run starts spec.Argv and streams its stdout and stderr, interleaved as
// they come, to out. It returns an error only when the program could not be
// started; how it ended is in the Result.
func (Exec) Run(ctx context.Context, spec Spec, out io.Writer) (*Result, error) {
	if len(spec.Argv) == 0 {
		return nil, errors.New("run: no program")
	}
	max := spec.MaxOutput
	if max <= 0 {
		max = defaultMaxOutput
	}
	over := make(chan struct{})
	w := &capped{w: out, left: max, over: over}
	command := func() *exec.Cmd {
		cmd := exec.Command(spec.Argv[0], spec.Argv[1:]...)
		cmd.Dir = spec.Dir
		cmd.Env = spec.Env
		cmd.Stdin = spec.Stdin
		cmd.ExtraFiles = spec.ExtraFiles
		if !spec.SameGroup {
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		}
		if spec.Cgroup != nil {
			if cmd.SysProcAttr == nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{}
			}
			cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, int(spec.Cgroup.Fd())
		}
		// A child that leaves the group can keep the output pipe open
		// after the program is gone: stop waiting for it soon after.
		cmd.WaitDelay = time.Second
		if spec.Prepare != nil {
			spec.Prepare(cmd)
		}
		cmd.Stdout, cmd.Stderr = w, w
		if spec.Stderr != nil {
			cmd.Stderr = cappedTo{w, spec.Stderr}
		}
		return cmd
	}
	if spec.Cgroup != nil && spec.Grouped != nil {
		spec.Grouped(spec.Cgroup.Name())
	}
	start := time.Now()
	cmd := command()
	CloseOnExec()
	err := cmd.Start()
	// A program just written can be "busy" for a moment: another
	// goroutine's fork took a copy of the writer's descriptor before it
	// was closed (golang.org/issue/22315). Builds and runs overlap here.
	for wait := 5 * time.Millisecond; errors.Is(err, syscall.ETXTBSY) && wait < time.Second; wait *= 2 {
		time.Sleep(wait)
		cmd = command()
		err = cmd.Start()
	}
	if err != nil {
		// Go says "fork/exec PROGRAM" of whatever failed between the fork
		// and the program: entering the folder included.
		if cmd.SysProcAttr != nil && cmd.SysProcAttr.Credential != nil && errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("run %s in %s as user %d: %w (that user may not reach the folder or the program: each folder above must let it through)", spec.Argv[0], spec.Dir, cmd.SysProcAttr.Credential.Uid, err)
		}
		return nil, fmt.Errorf("run %s: %w", spec.Argv[0], err)
	}
	if spec.Started != nil {
		spec.Started(cmd.Process.Pid)
	}
	pgid := cmd.Process.Pid
	if spec.SameGroup {
		pgid = -cmd.Process.Pid // kill the process alone, never the caller's group
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var timeout <-chan time.Time
	if spec.Timeout > 0 {
		t := time.NewTimer(spec.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	res := &Result{}
	select {
	case err = <-done:
	case <-timeout:
		res.TimedOut = true
		ts := Threads("/proc", cmd.Process.Pid, spec.Helper)
		if !InDriver(ts) {
			// A thread spinning shows nothing but R: where its code is
			// (the driver's library, waiting for the GPU) tells.
			CodeOfRunning(ts)
		}
		res.Threads, res.InDriver = ThreadText(ts), InDriver(ts)
		err = stop(spec, pgid, done)
	case <-over:
		res.Truncated = true
		err = stop(spec, pgid, done)
	case <-ctx.Done():
		res.Canceled = true
		err = stop(spec, pgid, done)
	}
	// Children left in the group (a shell's background jobs) go too.
	if !spec.SameGroup {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	res.Duration = time.Since(start)
	if w.truncated() {
		res.Truncated = true
		fmt.Fprintf(out, "\n[output cut at %d bytes; the program was stopped]\n", max)
	}
	var exitErr *exec.ExitError
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil // it exited 0; a child it left behind held the output open
	}
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.Signal = ws.Signal()
			res.ExitCode = -1
		}
	default:
		return res, err
	}
	return res, nil
}

// stop stops a program that must end now: all of it at once where the
// spec can, then its process group.
func stop(spec Spec, pgid int, done <-chan error) error {
	if spec.Stop != nil {
		spec.Stop()
	}
	return killGroup(pgid, done)
}

// killGroup stops the whole process group: SIGTERM, then SIGKILL if it is
// still there after a grace period.
func killGroup(pgid int, done <-chan error) error {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case err := <-done:
		return err
	case <-time.After(500 * time.Millisecond):
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	return <-done
}

// capped passes writes on until its budget is spent, then drops them and
// signals over once.
type capped struct {
	mu   sync.Mutex
	w    io.Writer
	left int64
	cut  bool
	over chan struct{}
}

func (c *capped) Write(p []byte) (int, error) { return c.writeTo(c.w, p) }

// cappedTo writes to its own writer within the budget of a capped.
type cappedTo struct {
	c *capped
	w io.Writer
}

func (t cappedTo) Write(p []byte) (int, error) { return t.c.writeTo(t.w, p) }

func (c *capped) writeTo(w io.Writer, p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cut {
		return len(p), nil
	}
	n := len(p)
	if int64(n) > c.left {
		p = p[:c.left]
		c.cut = true
		close(c.over)
	}
	c.left -= int64(len(p))
	if _, err := w.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

func (c *capped) truncated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cut
}
