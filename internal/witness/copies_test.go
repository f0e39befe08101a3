package witness

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestCopies: every copy of a watched library under the roots, each file
// once (a hard link is the same file), links not followed, other
// libraries left out.
func TestCopies(t *testing.T) {
	root := t.TempDir()
	write := func(name string) string {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sys := write("usr/lib/libcudart.so.13.0.48")
	venv := write("opt/venv/site-packages/nvidia/cu13/lib/libcudart.so.13")
	wheel := write("opt/venv/site-packages/torch/lib/libcudart-9335f6a2.so.12")
	drv := write("usr/lib/libcuda.so.580.159.04")
	write("usr/lib/libcudadebugger.so.1")
	write("usr/lib/libcublas.so.13")
	os.Symlink(sys, filepath.Join(root, "usr/lib/libcudart.so.13"))
	os.Link(drv, filepath.Join(root, "usr/lib/libcuda.so.1.copy"))
	got := Copies([]string{filepath.Join(root, "usr"), filepath.Join(root, "opt"), filepath.Join(root, "missing")}, func(base string) string {
		switch {
		case strings.HasPrefix(base, "libcudart"):
			return "libcudart"
		case strings.HasPrefix(base, "libcuda.so"):
			return "libcuda.so"
		}
		return ""
	})
	if want := []string{venv, wheel, sys}; !reflect.DeepEqual(got["libcudart"], want) {
		t.Errorf("runtimes: got %v, want %v", got["libcudart"], want)
	}
	// The driver and its hard link are one file: either name, once.
	if d := got["libcuda.so"]; len(d) != 1 || d[0] != drv && d[0] != filepath.Join(root, "usr/lib/libcuda.so.1.copy") {
		t.Errorf("drivers: got %v, want %s once", d, drv)
	}
	if len(got) != 2 {
		t.Errorf("got %v", got)
	}
}
