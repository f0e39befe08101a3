package runner

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// buildSpinner builds a program that spins, with the spin in a library
// named as the CUDA driver's (as a synchronisation spins in libcuda.so
// waiting for the GPU) or in its own code, and says "spinning" first.
func buildSpinner(t *testing.T, inLibrary bool) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the spinning program")
	}
	dir := t.TempDir()
	lib := `void cuStreamSynchronize(void) { for (;;) __asm__ volatile(""); }`
	prog := `#include <stdio.h>
void cuStreamSynchronize(void);
static void own(void) { for (;;) __asm__ volatile(""); }
int main(int argc, char **argv) { printf("spinning\n"); fflush(stdout); if (argc > 1) own(); cuStreamSynchronize(); return 0; }`
	os.WriteFile(filepath.Join(dir, "lib.c"), []byte(lib), 0o644)
	os.WriteFile(filepath.Join(dir, "main.c"), []byte(prog), 0o644)
	for _, args := range [][]string{
		{"-shared", "-fPIC", "-o", filepath.Join(dir, "libcuda.so.1"), "-Wl,-soname,libcuda.so.1", filepath.Join(dir, "lib.c")},
		{"-o", filepath.Join(dir, "spin"), filepath.Join(dir, "main.c"), filepath.Join(dir, "libcuda.so.1"), "-Wl,-rpath," + dir},
	} {
		if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			t.Fatalf("cc %v: %v\n%s", args, err, b)
		}
	}
	spin := filepath.Join(dir, "spin")
	if !inLibrary {
		return spin + " own"
	}
	return spin
}

// A thread spinning shows only as running: CodeOfRunning stops the
// program for an instant and names the file its code was in, the
// driver's library (then InDriver) or the program's own.
func TestCodeOfASpinningThread(t *testing.T) {
	for _, inLibrary := range []bool{true, false} {
		argv := strings.Fields(buildSpinner(t, inLibrary))
		cmd := exec.Command(argv[0], argv[1:]...)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the event (the program says it spins), not a time.
		if line, _ := bufio.NewReader(out).ReadString('\n'); line != "spinning\n" {
			t.Fatalf("the program said %q", line)
		}
		pid := cmd.Process.Pid
		want := "libcuda.so.1"
		if !inLibrary {
			want = "spin"
		}
		// Just after its line the program may still be in the C
		// library's write: look again until it is in its spin (it stays
		// there), an event, not a time.
		var ts []Thread
		for deadline := time.Now().Add(time.Minute); ; {
			ts = Threads("/proc", pid, "")
			if len(ts) == 1 && ts[0].State == "R" {
				CodeOfRunning(ts)
				if ts[0].Code == want {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("the spinning thread never showed running in %s: %+v", want, ts)
			}
			time.Sleep(5 * time.Millisecond)
		}
		if ts[0].Code != want || InDriver(ts) != inLibrary {
			t.Errorf("a spin in %s: code %q, in the driver %v (%s)", want, ts[0].Code, InDriver(ts), ThreadText(ts))
		}
		if got := ThreadText(ts); !strings.HasSuffix(got, " R at "+want) {
			t.Errorf("text = %q", got)
		}
		// Let go of after: it runs on, and stops only when killed.
		for deadline := time.Now().Add(time.Minute); ; {
			if _, st, _ := readStat(filepath.Join("/proc", strconv.Itoa(pid), "stat")); st != "T" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the program was left stopped")
			}
			time.Sleep(5 * time.Millisecond)
		}
		cmd.Process.Kill()
		cmd.Wait()
	}
}

// At the time limit the runner names the code of a spinning thread, and
// a spin in the driver's library is a wait in the driver: the run is made
// again alone, as one asleep in the driver's lock is.
func TestTimeoutOfASpinInTheDriver(t *testing.T) {
	res, out := run(t, Spec{Argv: []string{buildSpinner(t, true)}, Timeout: 1500 * time.Millisecond})
	if !res.TimedOut {
		t.Fatalf("res = %+v", res)
	}
	if !strings.Contains(out, "spinning") {
		t.Logf("the program had not started spinning at its limit (a loaded machine): %s", res.Threads)
		return
	}
	if !res.InDriver || !strings.Contains(res.Threads, "R at libcuda.so.1") {
		t.Errorf("a spin in the driver's library at the time limit: in the driver %v, threads %q", res.InDriver, res.Threads)
	}
}

// buildWaiter builds a program that says "waiting" and then waits on a
// lock it holds itself (a futex wait that never ends), called from a
// library named as the CUDA driver's (as a synchronisation with the
// blocking schedule waits, driver 580) or from its own code.
func buildWaiter(t *testing.T, inLibrary bool) []string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the waiting program")
	}
	dir := t.TempDir()
	lib := `#include <pthread.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
void cuCtxSynchronize(void) { pthread_mutex_lock(&m); pthread_mutex_lock(&m); }`
	prog := `#include <stdio.h>
#include <pthread.h>
void cuCtxSynchronize(void);
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int main(int argc, char **argv) {
    printf("waiting\n"); fflush(stdout);
    if (argc > 1) { pthread_mutex_lock(&m); pthread_mutex_lock(&m); }
    cuCtxSynchronize();
    return 0;
}`
	os.WriteFile(filepath.Join(dir, "lib.c"), []byte(lib), 0o644)
	os.WriteFile(filepath.Join(dir, "main.c"), []byte(prog), 0o644)
	for _, args := range [][]string{
		{"-shared", "-fPIC", "-o", filepath.Join(dir, "libcuda.so.1"), "-Wl,-soname,libcuda.so.1", filepath.Join(dir, "lib.c"), "-lpthread"},
		{"-o", filepath.Join(dir, "wait"), filepath.Join(dir, "main.c"), filepath.Join(dir, "libcuda.so.1"), "-Wl,-rpath," + dir, "-lpthread"},
	} {
		if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			t.Fatalf("cc %v: %v\n%s", args, err, b)
		}
	}
	if !inLibrary {
		return []string{filepath.Join(dir, "wait"), "own"}
	}
	return []string{filepath.Join(dir, "wait")}
}

// A thread asleep on a futex under a call of the driver's library is a
// wait in the driver (the run is made again alone); one asleep on a lock
// of the program's own, with the driver's library loaded, is not.
func TestTimeoutOfAWaitUnderTheDriver(t *testing.T) {
	for _, inLibrary := range []bool{true, false} {
		res, out := run(t, Spec{Argv: buildWaiter(t, inLibrary), Timeout: 1500 * time.Millisecond})
		if !res.TimedOut {
			t.Fatalf("res = %+v", res)
		}
		if !strings.Contains(out, "waiting") || !strings.Contains(res.Threads, "(futex)") {
			t.Logf("the program was not asleep on its lock at its limit (a loaded machine): %s", res.Threads)
			continue
		}
		under := strings.Contains(res.Threads, "(futex) from libcuda.so.1")
		if res.InDriver != inLibrary || under != inLibrary {
			t.Errorf("a wait called from the driver's library %v: in the driver %v, threads %q", inLibrary, res.InDriver, res.Threads)
		}
	}
}

func TestStackPointer(t *testing.T) {
	for _, c := range []struct {
		line string
		sp   uint64
		ok   bool
	}{
		{"202 0x55d0c0a0 0x80 0x2 0x0 0x0 0x0 0x7ffd1c3e8f40 0x7f3b2c09a0d5", 0x7ffd1c3e8f40, true},
		{"-1 0x7ffd1c3e8f40 0x7f3b2c09a0d5", 0, false}, // stopped outside a call
		{"running", 0, false},
		{"", 0, false},
		{"202 0x1 0x2 0x3 0x4 0x5 0x6 zz 0x7", 0, false},
	} {
		sp, ok := stackPointer(c.line)
		if sp != c.sp || ok != c.ok {
			t.Errorf("stackPointer(%q) = %#x, %v; want %#x, %v", c.line, sp, ok, c.sp, c.ok)
		}
	}
}
