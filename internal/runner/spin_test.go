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
