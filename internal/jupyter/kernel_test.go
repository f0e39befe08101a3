package jupyter

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// start starts the python3 kernel installed here (Debian's
// python3-ipykernel in CI), or skips.
func start(t *testing.T) *Kernel {
	t.Helper()
	spec, err := FindSpec("python3")
	if err != nil {
		t.Skip(err)
	}
	k, err := Start(context.Background(), spec, t.TempDir(), os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

// The real kernel keeps state from cell to cell, streams what a cell
// prints, shows a last value, an image and an error with its traceback,
// runs IPython's own ! and % lines, and is interrupted at a time limit
// without losing its state.
func TestKernel(t *testing.T) {
	k := start(t)
	run := func(n int, code string, timeout time.Duration) (string, bool, string, int) {
		t.Helper()
		var out strings.Builder
		res, err := k.Run(context.Background(), n, code, &out, timeout)
		if err != nil {
			t.Fatalf("cell [%d]: %v", n, err)
		}
		images := 0
		for _, o := range res.Outputs {
			if o.MIME != "" {
				images++
			}
		}
		return out.String(), res.OK && !res.TimedOut, res.Ename, images
	}
	if out, ok, _, _ := run(1, "x = 6 * 7\nprint('x is', x)", 0); !ok || out != "x is 42\n" {
		t.Errorf("cell 1: %v %q", ok, out)
	}
	if out, ok, _, _ := run(2, "x + 1", 0); !ok || out != "43\n" {
		t.Errorf("cell 2: %v %q", ok, out)
	}
	if out, ok, _, _ := run(3, "!echo from the shell {x}\n%env LESSONS_X=1\nimport os; print(os.environ['LESSONS_X'])", 0); !ok || !strings.Contains(out, "from the shell 42") || !strings.Contains(out, "\n1\n") {
		t.Errorf("cell 3: %v %q", ok, out)
	}
	out, ok, ename, _ := run(4, "def f():\n    return 1 / 0\nf()", 0)
	if ok || ename != "ZeroDivisionError" || !strings.Contains(out, "return 1 / 0") {
		t.Errorf("cell 4: %v %s %q", ok, ename, out)
	}
	if _, ok, _, images := run(5, "from IPython.display import Image, display\ndisplay(Image(data=bytes.fromhex('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a3b1f5e00000000049454e44ae426082')))", 0); !ok || images != 1 {
		t.Errorf("cell 5: %v, %d images", ok, images)
	}
	out, ok, ename, _ = run(6, "import time\nprint('start', flush=True)\nwhile True: time.sleep(0.01)", 500*time.Millisecond)
	if ok || ename != "KeyboardInterrupt" || !strings.Contains(out, "start") {
		t.Errorf("cell 6: %v %s %q", ok, ename, out)
	}
	if out, ok, _, _ := run(7, "print(x)", 0); !ok || out != "42\n" {
		t.Errorf("after the interrupt: %v %q", ok, out)
	}
}

// A cell that ignores the interrupt gets the kernel killed a grace
// later, as the driver's process is; the kernel then runs no more cells.
func TestDeafCellKilled(t *testing.T) {
	k := start(t)
	k.proc.SetGrace(100 * time.Millisecond)
	cell := "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint('deaf', flush=True)\nwhile True: time.sleep(0.01)"
	res, err := k.Run(context.Background(), 1, cell, io.Discard, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "a cell did not stop when interrupted") || res == nil || !res.TimedOut || res.OK {
		t.Fatalf("%+v %v", res, err)
	}
	if k.Alive() {
		t.Error("the kernel is alive after the kill")
	}
	if _, err := k.Run(context.Background(), 2, "print(1)", io.Discard, 0); err == nil {
		t.Error("a cell ran after the kill")
	}
}

// BenchmarkCell is what a cell costs through the kernel: ns/op is the
// whole round trip (execute_request sent, until its status idle is
// read); busy-us/op is the part the kernel itself says it spent (its
// status busy to its status idle, by the kernel's own dates), and
// lessons-us/op the rest, what lessons and the messaging add. The cell
// is trivial (x = 1), so the kernel's own work is as small as it gets.
func BenchmarkCell(b *testing.B) {
	spec, err := FindSpec("python3")
	if err != nil {
		b.Skip(err)
	}
	k, err := Start(context.Background(), spec, b.TempDir(), os.Environ())
	if err != nil {
		b.Fatal(err)
	}
	defer k.Close()
	var out strings.Builder
	var busy time.Duration
	for i := 0; b.Loop(); i++ {
		out.Reset()
		res, err := k.Run(context.Background(), i, "x = 1", &out, 0)
		if err != nil || !res.OK {
			b.Fatal(err, res)
		}
		busy += res.Busy
	}
	per := float64(b.Elapsed().Microseconds()) / float64(b.N)
	kernel := float64(busy.Microseconds()) / float64(b.N)
	b.ReportMetric(kernel, "busy-us/op")
	b.ReportMetric(per-kernel, "lessons-us/op")
}

// A kernel's name comes from a notebook: one that is a path is refused
// before any file is read.
func TestFindSpecRefusesPaths(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(dir+"/kernels/ok", 0o755)
	os.WriteFile(dir+"/evil.json", []byte(`{"argv": ["/bin/true"]}`), 0o644)
	t.Setenv("JUPYTER_PATH", dir)
	os.WriteFile(dir+"/kernel.json", []byte(`{"argv": ["/bin/true"]}`), 0o644)
	os.MkdirAll(dir+"/kernels/.hidden", 0o755)
	os.WriteFile(dir+"/kernels/.hidden/kernel.json", []byte(`{"argv": ["/bin/true"]}`), 0o644)
	for _, name := range []string{"../../evil", "/tmp", "a/b", "", "..", ".", ".hidden"} {
		if _, err := FindSpec(name); err == nil || !strings.Contains(err.Error(), "not a Jupyter kernel's name") {
			t.Errorf("%q: %v", name, err)
		}
	}
}

// A kernel is waited for until it listens, not for a count of tries: one
// that ends first says so, with what it printed, at once; one that is
// slow to start (a busy machine) is connected to when it listens.
func TestStartWaitsForTheKernel(t *testing.T) {
	broken := &Spec{Name: "broken", Argv: []string{"sh", "-c", "echo no module named ipykernel >&2; exit 1"}}
	_, err := Start(context.Background(), broken, t.TempDir(), os.Environ())
	if err == nil || !strings.Contains(err.Error(), "it ended before it listened") || !strings.Contains(err.Error(), "no module named ipykernel") {
		t.Errorf("a kernel that ends: %v", err)
	}
	spec, err := FindSpec("python3")
	if err != nil {
		t.Skip(err)
	}
	if testing.Short() {
		t.Skip("a kernel held back 12 s")
	}
	// The kernel starts only once a file appears: as late as a loaded
	// machine would start it, past the sockets' own retries.
	gate := filepath.Join(t.TempDir(), "go")
	slow := *spec
	slow.Argv = append([]string{"sh", "-c", `while [ ! -e "$0" ]; do sleep 0.05; done; exec "$@"`, gate}, spec.Argv...)
	started := make(chan *Kernel, 1)
	go func() {
		k, err := Start(context.Background(), &slow, t.TempDir(), os.Environ())
		if err != nil {
			t.Error(err)
		}
		started <- k
	}()
	select {
	case <-started:
		t.Fatal("connected to a kernel that had not started")
	case <-time.After(12 * time.Second): // longer than 200 tries of 50 ms
	}
	os.WriteFile(gate, nil, 0o644)
	if k := <-started; k != nil {
		k.Close()
	}
}

// A port given to the kernel that another program took between its pick
// and the kernel's bind (a busy machine's servers and connections draw
// from the same ports) makes the kernel end at once: Start tries again
// with other ports, rather than fail the notebook's run.
func TestStartRetriesAPortTaken(t *testing.T) {
	spec, err := FindSpec("python3")
	if err != nil {
		t.Skip(err)
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	picks := 0
	pickPorts = func(n int) ([]int, error) {
		picks++
		ports, err := freePorts(n)
		if picks == 1 && err == nil {
			ports[2] = taken.Addr().(*net.TCPAddr).Port
		}
		return ports, err
	}
	defer func() { pickPorts = freePorts }()
	k, err := Start(context.Background(), spec, t.TempDir(), os.Environ())
	if err != nil {
		t.Fatalf("a kernel given a port taken, then others: %v", err)
	}
	k.Close()
	if picks != 2 {
		t.Errorf("ports picked %d times, want 2", picks)
	}
}
