package python

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/cudalessons/lessons/internal/runner"
)

// Grace is how long an interrupted cell, or a session asked to end, has
// before its process group is killed: jupyter_client's own wait for a
// kernel's shutdown (shutdown_wait_time), for the driver and a Jupyter
// kernel alike.
const Grace = 5 * time.Second

// Process is the process a session's cells run in (python3 with the
// driver, or a Jupyter kernel), in a process group of its own so that an
// interrupt or a kill reaches what its cells started too (! lines, a
// program a cell runs). Both kinds of session stop cells, and end, the
// same way through it.
type Process struct {
	cmd    *exec.Cmd
	what   string // "the Python process", "the Jupyter kernel"
	grace  time.Duration
	exited chan struct{}

	mu   sync.Mutex
	dead error
}

// StartProcess starts cmd in a process group of its own; what names it
// in errors ("the Jupyter kernel").
func StartProcess(cmd *exec.Cmd, what string) (*Process, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	runner.CloseOnExec()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd, what: what, grace: Grace, exited: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		if p.dead == nil {
			p.dead = fmt.Errorf("%s ended (%v)", what, err)
		}
		p.mu.Unlock()
		close(p.exited)
	}()
	return p, nil
}

// SetGrace sets how long an interrupted cell has before the kill (a test
// of that kill need not wait Grace).
func (p *Process) SetGrace(d time.Duration) { p.grace = d }

// Exited is closed when the process has ended.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Err is why the process can run no more cells; nil while it can.
func (p *Process) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dead
}

// Alive reports whether the process still runs cells.
func (p *Process) Alive() bool { return p.Err() == nil }

// Kill kills the process group, the session over for why, and waits for
// the process to end.
func (p *Process) Kill(why string) {
	p.mu.Lock()
	if p.dead == nil {
		p.dead = fmt.Errorf("%s was killed: %s", p.what, why)
	}
	p.mu.Unlock()
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.exited
}

// End waits up to the grace for the process to end by itself (its input
// closed, or a shutdown asked for), then kills it.
func (p *Process) End() {
	t := time.NewTimer(p.grace)
	defer t.Stop()
	select {
	case <-p.exited:
	case <-t.C:
		p.Kill("it did not end when asked")
	}
}

// Watch is one cell's time limit and cancel, for a session's Run: at
// the limit or when ctx ends the cell is interrupted (SIGINT to the
// process group, as Jupyter's interrupt is), and the process is killed
// if the cell has not stopped a grace later.
type Watch struct {
	// Limit, Done and Kill are for the Run's select: call Expire,
	// Cancel and Kill when they fire.
	Limit <-chan time.Time
	Done  <-chan struct{}
	Kill  <-chan time.Time
	// TimedOut and Canceled say what stopped the cell.
	TimedOut, Canceled bool

	p     *Process
	limit *time.Timer
	kill  *time.Timer
}

// Watch watches a cell that runs until ctx ends or for timeout (0: no
// limit); Stop it when the cell is done.
func (p *Process) Watch(ctx context.Context, timeout time.Duration) *Watch {
	w := &Watch{p: p, Done: ctx.Done()}
	if timeout > 0 {
		w.limit = time.NewTimer(timeout)
		w.Limit = w.limit.C
	}
	return w
}

// Expire interrupts the cell at its time limit.
func (w *Watch) Expire() {
	w.TimedOut, w.Limit = true, nil
	w.interrupt()
}

// Cancel interrupts the cell when its context ends (Stop in the page,
// Ctrl-C).
func (w *Watch) Cancel() {
	w.Canceled, w.Done = true, nil
	w.interrupt()
}

func (w *Watch) interrupt() {
	_ = syscall.Kill(-w.p.cmd.Process.Pid, syscall.SIGINT)
	if w.kill == nil {
		w.kill = time.NewTimer(w.p.grace)
		w.Kill = w.kill.C
	}
}

// KillNow kills the process when the interrupted cell has not stopped
// within the grace; the Run then reads on until the process's end.
func (w *Watch) KillNow() {
	w.Kill = nil
	w.p.Kill("a cell did not stop when interrupted")
}

// Stopped tells whether the cell was interrupted: it failed, whatever
// it said after.
func (w *Watch) Stopped() bool { return w.TimedOut || w.Canceled }

// Stop releases the watch's timers.
func (w *Watch) Stop() {
	if w.limit != nil {
		w.limit.Stop()
	}
	if w.kill != nil {
		w.kill.Stop()
	}
}
