package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func run(t *testing.T, spec Spec) (*Result, string) {
	t.Helper()
	var out bytes.Buffer
	res, err := Exec{}.Run(context.Background(), spec, &out)
	if err != nil {
		t.Fatal(err)
	}
	return res, out.String()
}

func TestExitAndOutput(t *testing.T) {
	res, out := run(t, Spec{Argv: []string{"sh", "-c", "echo out; echo err >&2; exit 3"}})
	if res.ExitCode != 3 || res.OK() || !strings.Contains(out, "out\n") || !strings.Contains(out, "err\n") {
		t.Errorf("res = %+v, out = %q", res, out)
	}
	if got := res.Reason(0, 0); got != "exit status 3" {
		t.Errorf("reason = %q", got)
	}
}

func TestTimeoutKillsTheWholeGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child")
	// The child ignores SIGTERM; the program waits for it to say its pid.
	script := "trap '' TERM; sh -c 'trap \"\" TERM; echo $$ > " + pidFile + ".new; mv " + pidFile + ".new " + pidFile + "; exec sleep 30' & " +
		"while [ ! -f " + pidFile + " ]; do :; done; sleep 30"
	res, _ := run(t, Spec{Argv: []string{"sh", "-c", script}, Timeout: time.Second})
	if !res.TimedOut || res.OK() {
		t.Fatalf("res = %+v, want a timeout", res)
	}
	if res.Duration > 20*time.Second { // the program's own sleep is 30 s
		t.Errorf("took %s to stop", res.Duration)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Skipf("the child had not started within the timeout (a busy machine): %v", err)
	}
	pid := strings.TrimSpace(string(data))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return // gone, or dead and not yet reaped
		}
		if time.Now().After(deadline) { // a child that lives on, not a slow one
			t.Fatalf("a child of the timed-out program lived on: %s", stat)
		}
	}
}

// TestStopReachesWhatLeftTheGroup: a child in a session of its own
// escapes the group kill; Stop (a sandbox's cgroup) is what reaches it,
// and it is called for each way a program is stopped, and only then.
func TestStopReachesWhatLeftTheGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	script := "setsid sh -c 'echo $$ > " + pidFile + "; exec sleep 30' & sleep 30"
	var stopped []string
	stop := func(why string) func() {
		return func() {
			stopped = append(stopped, why)
			data, _ := os.ReadFile(pidFile)
			var pid int
			fmt.Sscan(string(data), &pid)
			if pid > 0 {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	res, _ := run(t, Spec{Argv: []string{"sh", "-c", script}, Timeout: 300 * time.Millisecond, Stop: stop("timeout")})
	if !res.TimedOut {
		t.Fatalf("res = %+v, want a timeout", res)
	}
	res, _ = run(t, Spec{Argv: []string{"sh", "-c", "yes"}, MaxOutput: 100, Stop: stop("output")})
	if !res.Truncated {
		t.Fatalf("res = %+v, want truncated", res)
	}
	res, _ = run(t, Spec{Argv: []string{"true"}, Stop: stop("ended by itself")})
	if !res.OK() {
		t.Fatalf("res = %+v", res)
	}
	if strings.Join(stopped, ",") != "timeout,output" {
		t.Errorf("Stop called for %v, want timeout and output", stopped)
	}
}

func TestOutputCapStopsTheProgram(t *testing.T) {
	res, out := run(t, Spec{Argv: []string{"sh", "-c", "yes 'x'"}, MaxOutput: 1000, Timeout: 10 * time.Second})
	if !res.Truncated || res.TimedOut {
		t.Fatalf("res = %+v, want truncated and not timed out", res)
	}
	if n := strings.Count(out, "x\n"); n != 500 {
		t.Errorf("kept %d lines, want 500", n)
	}
	if !strings.Contains(out, "[output cut at 1000 bytes; the program was stopped]") {
		t.Errorf("no note of the cut in %q", out[len(out)-80:])
	}
}

func TestSignal(t *testing.T) {
	res, _ := run(t, Spec{Argv: []string{"sh", "-c", "kill -SEGV $$"}})
	if res.Signal != syscall.SIGSEGV || res.ExitCode != -1 {
		t.Errorf("res = %+v, want SIGSEGV", res)
	}
	if r := res.Reason(0, 0); !strings.Contains(r, "signal 11") {
		t.Errorf("reason = %q", r)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	res, err := Exec{}.Run(ctx, Spec{Argv: []string{"sleep", "30"}}, &bytes.Buffer{})
	if err != nil || !res.Canceled {
		t.Errorf("res = %+v, err = %v", res, err)
	}
}

func TestNotFound(t *testing.T) {
	_, err := Exec{}.Run(context.Background(), Spec{Argv: []string{"/nonexistent/prog"}}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "run /nonexistent/prog") {
		t.Errorf("err = %v", err)
	}
}

// A run as another user that may not enter its folder says so, not
// only Go's "fork/exec PROGRAM: permission denied" (which names the
// program whatever failed after the fork).
func TestARunItsUserCannotReachSaysWhy(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the run starts as another user")
	}
	closed := filepath.Join(t.TempDir(), "closed")
	os.Mkdir(closed, 0o700)
	dir := filepath.Join(closed, "ws")
	os.Mkdir(dir, 0o777)
	spec := Spec{Argv: []string{"/bin/true"}, Dir: dir, Prepare: func(c *exec.Cmd) {
		c.SysProcAttr.Credential = &syscall.Credential{Uid: 65534, Gid: 65534}
	}}
	_, err := Exec{}.Run(context.Background(), spec, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "in "+dir+" as user 65534") || !strings.Contains(err.Error(), "may not reach the folder") {
		t.Fatalf("got %v", err)
	}
}
