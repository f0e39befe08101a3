package buildcache

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A submission's local include that leaves its folder reached the
// grader's own hashing of the build (Key runs in the grader, outside
// every sandbox): a classmate's FIFO held the grader's build slot for
// ever, and "../../../../dev/zero" would have read until the grader ran
// out of memory. Key reads regular files alone, and waits on none.
func TestKeyWaitsOnNoFIFO(t *testing.T) {
	base := t.TempDir()
	fifo := filepath.Join(base, "fifo")
	if err := syscall.Mkfifo(fifo, 0o666); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	// Whatever happens, the FIFO gets a writer that closes at once, so a
	// reader left waiting ends.
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
			f.Close()
		}
	})
	ws := filepath.Join(base, "ws")
	os.Mkdir(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "x.cu"), []byte("#include \"../fifo\"\nint main() {}\n"), 0o644)
	done := make(chan error, 1)
	go func() {
		_, err := Key(Compiler{Path: "nvcc", Version: "13.0.88"}, Parse([]string{"-o", "x", "x.cu"}, ""), ws)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "fifo") {
			t.Errorf("a FIFO should be no file to hash: %v", err)
		}
	case <-time.After(30 * time.Second): // a hang's guard, not a timing
		t.Fatal("Key is still waiting on a FIFO outside the build's folder")
	}
}

// A device reached the same way is refused as soon as it is opened: not
// read, whether it ends (/dev/null) or never does (/dev/zero).
func TestKeyReadsNoDevice(t *testing.T) {
	ws := t.TempDir()
	up := strings.Repeat("../", strings.Count(ws, "/")+2)
	for _, dev := range []string{"/dev/zero", "/dev/urandom", "/dev/null"} {
		if _, err := os.Stat(dev); err != nil {
			continue
		}
		os.WriteFile(filepath.Join(ws, "x.cu"), []byte("#include \""+up+dev[1:]+"\"\nint main() {}\n"), 0o644)
		_, err := Key(Compiler{Path: "nvcc", Version: "13.0.88"}, Parse([]string{"-o", "x", "x.cu"}, ""), ws)
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s should be no file to hash: %v", dev, err)
		}
	}
}
